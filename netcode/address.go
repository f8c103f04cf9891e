package netcode

import (
	"encoding/binary"
	"net/netip"
)

// Address type values on the wire (netcode 1.02: 1 = IPv4, 2 = IPv6).
const (
	addressIPv4 = 1
	addressIPv6 = 2
)

// MaxServers is the largest number of server addresses in a connect token.
const MaxServers = 32

// normalizeAddr returns a with an IPv4-mapped IPv6 address unmapped and any
// zone dropped, the form in which addresses are written and compared.
func normalizeAddr(a netip.AddrPort) netip.AddrPort {
	ip := a.Addr().Unmap().WithZone("")
	return netip.AddrPortFrom(ip, a.Port())
}

// appendAddress writes a (normalised, valid) address: the type byte, then
// four bytes or eight little-endian 16-bit groups, then the port.
func appendAddress(b []byte, a netip.AddrPort) []byte {
	ip := a.Addr()
	if ip.Is4() {
		v := ip.As4()
		b = append(b, addressIPv4, v[0], v[1], v[2], v[3])
	} else {
		v := ip.As16()
		b = append(b, addressIPv6)
		for i := 0; i < 16; i += 2 {
			// Group value a:b:...: each group's numeric value, little endian.
			b = binary.LittleEndian.AppendUint16(b, uint16(v[i])<<8|uint16(v[i+1]))
		}
	}
	return binary.LittleEndian.AppendUint16(b, a.Port())
}

// readAddress decodes one address from b, returning it and its size.
func readAddress(b []byte) (netip.AddrPort, int, error) {
	if len(b) < 1 {
		return netip.AddrPort{}, 0, ErrMalformed
	}
	switch b[0] {
	case addressIPv4:
		if len(b) < 7 {
			return netip.AddrPort{}, 0, ErrMalformed
		}
		ip := netip.AddrFrom4([4]byte{b[1], b[2], b[3], b[4]})
		return netip.AddrPortFrom(ip, binary.LittleEndian.Uint16(b[5:])), 7, nil
	case addressIPv6:
		if len(b) < 19 {
			return netip.AddrPort{}, 0, ErrMalformed
		}
		var v [16]byte
		for i := 0; i < 8; i++ {
			g := binary.LittleEndian.Uint16(b[1+2*i:])
			v[2*i] = byte(g >> 8)
			v[2*i+1] = byte(g)
		}
		ip := netip.AddrFrom16(v)
		return netip.AddrPortFrom(ip, binary.LittleEndian.Uint16(b[17:])), 19, nil
	}
	return netip.AddrPort{}, 0, ErrMalformed
}

// validServerAddress reports whether a can be written into a token.
func validServerAddress(a netip.AddrPort) bool {
	return a.IsValid() && a.Addr().IsValid()
}
