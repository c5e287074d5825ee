/**
 * Commands of users, workspaces, members, tokens and API keys.
 * No other capability or layer uses any of them: accounts' own folders import the modules directly.
 */
export {}
