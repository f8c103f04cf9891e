// Package reliable adds two channels on top of netcode payloads (or any
// datagram transport with packets of up to MaxPacketSize bytes):
//
//   - a reliable channel: messages of 0 to 64 KiB, delivered exactly once
//     and in the order sent, split into fragments of FragmentSize bytes and
//     reassembled, resent until acknowledged;
//   - an unreliable channel: messages of up to MaxUnreliableSize bytes
//     (used for snapshots and inputs), sent once, delivered at most once,
//     possibly out of order or not at all.
//
// # Packet format
//
// Every packet starts with a header, little endian: flags, a 16-bit packet
// sequence and, when packets with reliable fragments arrived since the
// sender last acknowledged (flag bit 0), the acknowledgements: the sequence
// of the newest packet received from the peer, a 32-bit field whose bit i
// acknowledges the packet received i+1 before it, and the id of the next
// reliable message the sender expects (a cumulative acknowledgement of
// every message before it). The bit field is left out when all its bits are
// set (flag bit 1: nothing lost lately, the usual case), so a header is 3
// bytes (the usual packet of snapshots or inputs: nothing to acknowledge), 7,
// or 11. Chunks follow until the end of the packet: tag 1 is an unreliable
// message (16-bit length, data); tag 3 an unreliable message that ends the packet (data, no length: the
// usual packet of one snapshot or one input); tag 2 is a reliable fragment
// (16-bit message id, fragment index, fragment count - 1, 16-bit length,
// data). Every fragment but a message's last carries exactly FragmentSize
// bytes.
//
// # Semantics
//
// Acknowledgements are owed for packets that carried reliable fragments
// (unreliable messages are never acknowledged): they ride on the next packet
// sent after such a packet arrived, once (a packet of their own if nothing
// else is due: AckOwed), and a fragment resent because that packet was lost
// owes them again. The sender keeps, for each of the last 256 packets, which
// fragments it carried, so one acknowledged packet acknowledges those
// fragments, and the cumulative field acknowledges whole messages even when
// bursts outrun the 33 packets one header can cover. The round-trip time is
// smoothed as in RFC 6298, from the newest packet an acknowledgement names,
// the first time it is named (the older packets in the bit field may have
// waited long for a fragment to acknowledge); a fragment unacknowledged for
// srtt + 4·rttvar (clamped to [MinResend, MaxResend]) is resent. At most
// Window messages are outstanding and at most MaxInFlight bytes
// unacknowledged, which bounds bursts; the receiver bounds out-of-order buffering by MaxReceiveBuffer.
// Packets seen before (or older than the last 256) are ignored whole, so an
// unreliable message is never delivered twice even if the network
// duplicates packets.
//
// # Use
//
// Endpoint is sans-I/O: call SendReliable / SendUnreliable to queue,
// AppendPacket (repeatedly, at your send rate) to produce packets, Receive
// for every packet from the peer, and Read to take delivered messages. Time
// is a time.Duration since any fixed origin. Steady-state operation does
// not allocate.
package reliable
