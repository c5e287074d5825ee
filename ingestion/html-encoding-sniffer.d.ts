// html-encoding-sniffer 6 ships no types: the HTML Standard's encoding sniffing, answering an encoding name.
declare module 'html-encoding-sniffer' {
  export default function sniffHTMLEncoding(
    bytes: Uint8Array,
    options?: { xml?: boolean; transportLayerEncodingLabel?: string; defaultEncoding?: string },
  ): string
}
