import { suite } from 'uvu'
import { user } from '../../domain/accounts/user'
import { given } from '../../testkit/spec'
import { register } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: user')

test('user: registering a new user records UserRegistered', () => {
  given(user, [])
    .when(register)
    .then([{ type: 'UserRegistered', data: { userId: 'user-0001', email: 'ada@example.com', name: 'Ada King' } }])
})

test('user: registering a user that exists is a CONFLICT, whatever the email and name', () => {
  const registered = { type: 'UserRegistered' as const, data: register.data }
  given(user, [registered]).when(register).thenFails('CONFLICT')
  const other = { ...register, data: { ...register.data, email: 'other@example.com', name: 'Other' } }
  given(user, [registered]).when(other).thenFails('CONFLICT')
})

test.run()
