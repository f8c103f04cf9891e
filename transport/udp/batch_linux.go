package udp

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmsg moves datagrams through recvmmsg and sendmmsg on a UDP socket, with
// every buffer, address and control message preallocated: a batch read or
// written allocates nothing. Its receive half is the Server goroutine's, its
// send half is used under the Server's mutex.
type mmsg struct {
	rc    syscall.RawConn
	inet6 bool // the socket is AF_INET6 (IPv4 peers appear as mapped addresses)

	// Receive half.
	rhdr  []unix.Mmsghdr
	riov  []unix.Iovec
	rbuf  []byte     // batchSize slots of readBufSize
	rname []sockaddr // the sources, as the kernel wrote them
	roob  []byte     // batchSize slots of oobSize
	rn    int        // datagrams in the last recv
	rerr  error
	recvF func(fd uintptr) bool // m.recvmmsg, bound once

	// Send half.
	shdr   []unix.Mmsghdr
	siov   []unix.Iovec
	sbuf   []byte // batchSize slots of readBufSize
	sname  []sockaddr
	sq     int // datagrams queued
	sent   int // of those, handled (sent or skipped) by the running send
	failed int
	sendF  func(fd uintptr) bool // m.sendmmsg, bound once
}

// sockaddr holds a struct sockaddr_in or sockaddr_in6.
type sockaddr [unix.SizeofSockaddrInet6]byte

// oobSize holds one SCM_TIMESTAMPNS control message.
var oobSize = unix.CmsgSpace(16)

// newBatcher returns recvmmsg/sendmmsg access to conn, which it asks to
// stamp each datagram with its arrival time (SO_TIMESTAMPNS), or nil if the
// socket's family cannot be read.
func newBatcher(conn *net.UDPConn) batcher {
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil
	}
	domain := -1
	rc.Control(func(fd uintptr) {
		domain, err = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
		if err == nil {
			unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) // best effort
		}
	})
	if err != nil || (domain != unix.AF_INET && domain != unix.AF_INET6) {
		return nil
	}
	m := &mmsg{
		rc: rc, inet6: domain == unix.AF_INET6,
		rhdr: make([]unix.Mmsghdr, batchSize), riov: make([]unix.Iovec, batchSize),
		rbuf: make([]byte, batchSize*readBufSize), rname: make([]sockaddr, batchSize),
		roob: make([]byte, batchSize*oobSize),
		shdr: make([]unix.Mmsghdr, batchSize), siov: make([]unix.Iovec, batchSize),
		sbuf: make([]byte, batchSize*readBufSize), sname: make([]sockaddr, batchSize),
	}
	for i := range batchSize {
		m.riov[i].Base = &m.rbuf[i*readBufSize]
		h := &m.rhdr[i].Hdr
		h.Name = &m.rname[i][0]
		h.Iov = &m.riov[i]
		h.SetIovlen(1)
		h.Control = &m.roob[i*oobSize]

		m.siov[i].Base = &m.sbuf[i*readBufSize]
		h = &m.shdr[i].Hdr
		h.Name = &m.sname[i][0]
		h.Iov = &m.siov[i]
		h.SetIovlen(1)
	}
	m.recvF, m.sendF = m.recvmmsg, m.sendmmsg
	return m
}

func (m *mmsg) recv() (int, error) {
	m.rn, m.rerr = 0, nil
	if err := m.rc.Read(m.recvF); err != nil {
		return 0, err
	}
	return m.rn, m.rerr
}

// recvmmsg reads what the socket holds, up to batchSize datagrams, without
// waiting (the runtime keeps the socket non-blocking): it always reports
// done, so the runtime never parks the goroutine on it.
func (m *mmsg) recvmmsg(fd uintptr) bool {
	for i := range m.rhdr {
		h := &m.rhdr[i].Hdr
		h.Namelen = uint32(len(sockaddr{}))
		h.SetControllen(oobSize)
		h.Flags = 0
		m.riov[i].SetLen(readBufSize)
	}
	for {
		n, _, e := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&m.rhdr[0])), uintptr(len(m.rhdr)), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
			m.rn = int(n)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
		default:
			m.rerr = e
		}
		return true
	}
}

func (m *mmsg) received(i int) ([]byte, netip.AddrPort) {
	h := &m.rhdr[i]
	return m.rbuf[i*readBufSize : i*readBufSize+int(h.Len)], decodeSockaddr(m.rname[i][:h.Hdr.Namelen])
}

func (m *mmsg) stamp(i int) time.Time {
	t, _ := arrivalStamp(m.roob[i*oobSize : i*oobSize+int(m.rhdr[i].Hdr.Controllen)])
	return t
}

func (m *mmsg) queue(p []byte, to netip.AddrPort) bool {
	i := m.sq
	if !encodeSockaddr(&m.sname[i], to, m.inet6) {
		return false
	}
	if m.inet6 {
		m.shdr[i].Hdr.Namelen = unix.SizeofSockaddrInet6
	} else {
		m.shdr[i].Hdr.Namelen = unix.SizeofSockaddrInet4
	}
	m.siov[i].SetLen(copy(m.sbuf[i*readBufSize:(i+1)*readBufSize], p))
	m.sq++
	return true
}

func (m *mmsg) full() bool { return m.sq == batchSize }

func (m *mmsg) send() (failed int) {
	if m.sq == 0 {
		return 0
	}
	m.sent, m.failed = 0, 0
	if err := m.rc.Write(m.sendF); err != nil {
		m.failed += m.sq - m.sent
	}
	m.sq = 0
	return m.failed
}

// sendmmsg writes the queued datagrams; a datagram the kernel refuses is
// counted as failed and skipped. It asks the runtime to wait for the socket
// to be writable when its buffer is full.
func (m *mmsg) sendmmsg(fd uintptr) bool {
	for m.sent < m.sq {
		n, _, e := unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&m.shdr[m.sent])), uintptr(m.sq-m.sent), 0, 0, 0)
		switch e {
		case 0:
			m.sent += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			m.failed++
			m.sent++
		}
	}
	return true
}

// decodeSockaddr returns the address in a struct sockaddr_in or
// sockaddr_in6, or the zero AddrPort (which the protocol refuses as an
// unknown address).
func decodeSockaddr(b []byte) netip.AddrPort {
	if len(b) < 2 {
		return netip.AddrPort{}
	}
	switch binary.NativeEndian.Uint16(b) {
	case unix.AF_INET:
		if len(b) >= unix.SizeofSockaddrInet4 {
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:]))
		}
	case unix.AF_INET6:
		if len(b) >= unix.SizeofSockaddrInet6 {
			ip := netip.AddrFrom16([16]byte(b[8:24]))
			if scope := binary.NativeEndian.Uint32(b[24:]); scope != 0 {
				ip = ip.WithZone(strconv.FormatUint(uint64(scope), 10)) // link-local peers only
			}
			return netip.AddrPortFrom(ip, binary.BigEndian.Uint16(b[2:]))
		}
	}
	return netip.AddrPort{}
}

// encodeSockaddr writes to into sa as a sockaddr_in6 (IPv4 as a mapped
// address) when inet6, else as a sockaddr_in; it reports false for an IPv6
// address on an IPv4 socket or an unknown zone.
func encodeSockaddr(sa *sockaddr, to netip.AddrPort, inet6 bool) bool {
	*sa = sockaddr{}
	binary.BigEndian.PutUint16(sa[2:], to.Port())
	if !inet6 {
		ip := to.Addr().Unmap()
		if !ip.Is4() {
			return false
		}
		binary.NativeEndian.PutUint16(sa[:], unix.AF_INET)
		a := ip.As4()
		copy(sa[4:8], a[:])
		return true
	}
	binary.NativeEndian.PutUint16(sa[:], unix.AF_INET6)
	a := to.Addr().As16()
	copy(sa[8:24], a[:])
	if zone := to.Addr().Zone(); zone != "" {
		scope, err := strconv.ParseUint(zone, 10, 32)
		if err != nil {
			ifi, ierr := net.InterfaceByName(zone)
			if ierr != nil {
				return false
			}
			scope = uint64(ifi.Index)
		}
		binary.NativeEndian.PutUint32(sa[24:], uint32(scope))
	}
	return true
}

// arrivalStamp returns the kernel's arrival timestamp in a datagram's
// control messages, if there is one.
func arrivalStamp(oob []byte) (time.Time, bool) {
	for len(oob) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return time.Time{}, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS {
			switch len(data) {
			case 16: // 64-bit timespec
				return time.Unix(int64(binary.NativeEndian.Uint64(data)), int64(binary.NativeEndian.Uint64(data[8:]))), true
			case 8: // 32-bit timespec
				return time.Unix(int64(int32(binary.NativeEndian.Uint32(data))), int64(int32(binary.NativeEndian.Uint32(data[4:])))), true
			}
		}
		oob = rest
	}
	return time.Time{}, false
}
