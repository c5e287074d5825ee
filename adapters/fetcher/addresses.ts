import ipaddr from 'ipaddr.js'

/**
 * Which addresses an outbound fetch may connect to. Public unicast
 * only; loopback and private ranges when the operator opts in (tests crawling a local server);
 * link-local, multicast, reserved and cloud-metadata addresses never. An IPv6 address that
 * carries an IPv4 one (mapped, IPv4-compatible, NAT64, 6to4) is judged by the IPv4 address it carries.
 */
export type Verdict = { ok: true } | { ok: false; reason: string }

const PRIVATE_V4 = new Set(['loopback', 'private', 'carrierGradeNat'])
const PRIVATE_V6 = new Set(['loopback', 'uniqueLocal'])
const EMBEDS_V4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4'])
// Metadata services that sit inside otherwise-allowed ranges.
// Azure's platform address (wire server, DNS, health probes) too.
const METADATA = new Set(['100.100.100.200', 'fd00:ec2::254', '192.0.0.192', '168.63.129.16'])

const embeddedV4 = (v6: ipaddr.IPv6, range: string): ipaddr.IPv4 => {
  const b = v6.toByteArray()
  // 6to4 carries it in bytes 2-5; the mapped, translated and NAT64 forms in the last four.
  return new ipaddr.IPv4(range === '6to4' ? b.slice(2, 6) : b.slice(12, 16))
}

/** ::a.b.c.d, the deprecated IPv4-compatible form (::/96), which ipaddr.js counts as unicast. */
const ipv4Compatible = (v6: ipaddr.IPv6) =>
  v6
    .toByteArray()
    .slice(0, 12)
    .every((b) => b === 0)

export const judgeAddress = (address: string, allowPrivate: boolean): Verdict => {
  if (!ipaddr.isValid(address)) return { ok: false, reason: `${address} is not an IP address` }
  let ip = ipaddr.parse(address)
  if (ip.kind() === 'ipv6') {
    const range = (ip as ipaddr.IPv6).range()
    if (EMBEDS_V4.has(range) || (range === 'unicast' && ipv4Compatible(ip as ipaddr.IPv6)))
      ip = embeddedV4(ip as ipaddr.IPv6, range)
  }
  const normal = ip.toString()
  if (METADATA.has(normal)) return { ok: false, reason: `${address} is a cloud metadata address` }
  const range = ip.range()
  if (range === 'unicast') return { ok: true }
  const isPrivate = (ip.kind() === 'ipv4' ? PRIVATE_V4 : PRIVATE_V6).has(range)
  if (isPrivate && allowPrivate) return { ok: true }
  return { ok: false, reason: `${address} is a ${range} address` }
}
