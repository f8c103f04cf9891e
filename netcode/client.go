package netcode

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// ClientState is the state of a Client; the values are those of the standard.
// Negative states are terminal errors.
type ClientState int8

// Client states.
const (
	StateTokenExpired       ClientState = -6
	StateInvalidToken       ClientState = -5
	StateConnectionTimedOut ClientState = -4
	StateResponseTimedOut   ClientState = -3
	StateRequestTimedOut    ClientState = -2
	StateDenied             ClientState = -1
	StateDisconnected       ClientState = 0
	StateSendingRequest     ClientState = 1
	StateSendingResponse    ClientState = 2
	StateConnected          ClientState = 3
)

func (s ClientState) String() string {
	switch s {
	case StateTokenExpired:
		return "connect token expired"
	case StateInvalidToken:
		return "invalid connect token"
	case StateConnectionTimedOut:
		return "connection timed out"
	case StateResponseTimedOut:
		return "connection response timed out"
	case StateRequestTimedOut:
		return "connection request timed out"
	case StateDenied:
		return "connection denied"
	case StateDisconnected:
		return "disconnected"
	case StateSendingRequest:
		return "sending connection request"
	case StateSendingResponse:
		return "sending connection response"
	case StateConnected:
		return "connected"
	}
	return fmt.Sprintf("ClientState(%d)", int8(s))
}

// Causes says, for a person to read, what a connection attempt that ended
// in s most likely means, one cause a line; "" for the states that need no
// explanation. A server refuses a bad request silently (netcode sends no
// reason back), so only the server's own log can tell which cause it was.
func (s ClientState) Causes() string {
	switch s {
	case StateRequestTimedOut:
		return "the server never answered the connection request. Likely causes:" +
			"\n  - no server is running at that address, or a firewall drops UDP to it" +
			"\n  - the token was minted with another key than the server's" +
			"\n  - the token names another protocol id than the server's" +
			"\n  - the token was already used (once a client leaves, its token is spent)" +
			"\n  - the server's clock says the token expired, or it expires too far ahead"
	case StateDenied:
		return "the server is full (every client slot is taken)"
	case StateResponseTimedOut:
		return "the server stopped answering during the handshake"
	}
	return ""
}

// Err returns the sentinel error for a terminal error state, or nil.
func (s ClientState) Err() error {
	switch s {
	case StateTokenExpired:
		return ErrTokenExpired
	case StateInvalidToken:
		return ErrTokenInvalid
	case StateConnectionTimedOut, StateResponseTimedOut, StateRequestTimedOut:
		return ErrTimeout
	case StateDenied:
		return ErrDenied
	}
	return nil
}

// ClientConfig configures a Client. Zero fields take the defaults shown.
type ClientConfig struct {
	// SendInterval is the period of connection request and response packets
	// while connecting, and of keep-alives while connected and idle
	// (default 100 ms, range 1 ms..10 s).
	SendInterval time.Duration
	// RedundantDisconnects is how many disconnect packets Disconnect sends
	// (default 10, range 1..64).
	RedundantDisconnects int
	// ProtocolID, if non-zero, is the protocol id the client speaks:
	// Connect refuses a token minted for another with ErrProtocolID
	// instead of sending requests the server would drop.
	ProtocolID uint64
}

func (c *ClientConfig) resolve() error {
	if err := defaultInt(&c.RedundantDisconnects, "RedundantDisconnects", 10, 1, 64); err != nil {
		return err
	}
	return defaultDuration(&c.SendInterval, "SendInterval", 100*time.Millisecond, time.Millisecond, 10*time.Second)
}

// ClientStats are cumulative counters of a Client.
type ClientStats struct {
	PacketsIn, BytesIn      uint64
	PacketsOut, BytesOut    uint64
	PayloadsIn, PayloadsOut uint64
	OutDropped              uint64
	Dropped                 DropCounts
}

// Client is the sans-I/O netcode client. Give it a connect token with
// Connect, feed it datagrams with Receive, call Update as time passes and
// send what Transmit returns. It is not safe for concurrent use.
type Client struct {
	cfg   ClientConfig
	state ClientState
	token ConnectToken

	server       int // index into token.ServerAddresses
	serverAddr   netip.AddrPort
	send, recv   cipher.AEAD
	seq          uint64
	window       replayWindow
	connectStart time.Time // start of the whole attempt (token expiry)
	serverStart  time.Time // start of the attempt on the current server
	lastRecv     time.Time
	lastSend     time.Time
	sentAny      bool

	clientIndex int
	maxClients  int

	challenge [challengeBodySize]byte
	request   [RequestPacketSize]byte

	out   outQueue
	stats ClientStats
	sc    scratch
}

// NewClient returns a disconnected client.
func NewClient(cfg ClientConfig) (*Client, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, clientIndex: -1}
	c.out.limit = cfg.RedundantDisconnects + 8
	return c, nil
}

// State returns the current state.
func (c *Client) State() ClientState { return c.state }

// ClientIndex is the slot the server assigned (-1 until connected).
func (c *Client) ClientIndex() int { return c.clientIndex }

// MaxClients is the server's slot count as told by its keep-alive (0 until connected).
func (c *Client) MaxClients() int { return c.maxClients }

// ServerAddr is the server address currently tried or connected to.
func (c *Client) ServerAddr() netip.AddrPort { return c.serverAddr }

// Stats returns a snapshot of the counters.
func (c *Client) Stats() ClientStats { return c.stats }

// Connect starts connecting with token at time now, to the token's first
// server address. It checks what the client can know before sending: if
// the token is inconsistent, or minted for another protocol id than
// ClientConfig.ProtocolID, the client enters StateInvalidToken and Connect
// returns ErrTokenInvalid or ErrProtocolID (wrapped with the ids); if the
// token's expire timestamp is not after now (Unix seconds) it enters
// StateTokenExpired and returns ErrTokenExpired (wrapped with how long
// ago). Otherwise the token's life counts from now, as the standard asks,
// so a client clock behind the backend's does not shorten it.
func (c *Client) Connect(now time.Time, token *ConnectToken) error {
	c.reset()
	n := len(token.ServerAddresses)
	if n < 1 || n > MaxServers || token.CreateTimestamp > token.ExpireTimestamp {
		c.state = StateInvalidToken
		return ErrTokenInvalid
	}
	if c.cfg.ProtocolID != 0 && token.ProtocolID != c.cfg.ProtocolID {
		c.state = StateInvalidToken
		return fmt.Errorf("%w: the token is for %#x, this client speaks %#x", ErrProtocolID, token.ProtocolID, c.cfg.ProtocolID)
	}
	if at := unixSeconds(now); token.ExpireTimestamp <= at {
		c.state = StateTokenExpired
		return fmt.Errorf("%w: %ds ago", ErrTokenExpired, at-token.ExpireTimestamp)
	}
	for _, a := range token.ServerAddresses {
		if !validServerAddress(a) {
			c.state = StateInvalidToken
			return ErrTokenInvalid
		}
	}
	c.token = *token
	c.token.ServerAddresses = append([]netip.AddrPort(nil), token.ServerAddresses...)
	c.send, _ = chacha20poly1305.New(token.ClientToServerKey[:])
	c.recv, _ = chacha20poly1305.New(token.ServerToClientKey[:])
	appendRequest(c.request[:0], &c.token)
	c.connectStart = now
	c.startServer(now, 0)
	return nil
}

func (c *Client) reset() {
	*c = Client{cfg: c.cfg, clientIndex: -1, out: c.out, stats: c.stats}
	c.out.reset()
}

func (c *Client) startServer(now time.Time, i int) {
	c.server = i
	c.serverAddr = normalizeAddr(c.token.ServerAddresses[i])
	c.state = StateSendingRequest
	c.serverStart = now
	c.lastRecv = now
	c.sentAny = false
	c.window = replayWindow{}
	c.send1(now)
}

// fail moves to the next server address, or to the terminal state st.
func (c *Client) fail(now time.Time, st ClientState) {
	if c.server+1 < len(c.token.ServerAddresses) {
		c.startServer(now, c.server+1)
		return
	}
	c.state = st
}

// timeout is the token's connection timeout; negative means none (the
// standard allows it; a Tether server refuses such tokens).
func (c *Client) timeout() time.Duration {
	if c.token.TimeoutSeconds < 0 {
		return -1
	}
	return time.Duration(c.token.TimeoutSeconds) * time.Second
}

// Update advances the client to now: it checks token expiry and timeouts and
// sends requests, responses or keep-alives when due.
func (c *Client) Update(now time.Time) {
	switch c.state {
	case StateSendingRequest, StateSendingResponse:
		life := time.Duration(c.token.ExpireTimestamp-c.token.CreateTimestamp) * time.Second
		if now.Sub(c.connectStart) >= life {
			c.state = StateTokenExpired
			return
		}
		if to := c.timeout(); to >= 0 && now.Sub(c.lastRecv) >= to {
			if c.state == StateSendingRequest {
				c.fail(now, StateRequestTimedOut)
			} else {
				c.fail(now, StateResponseTimedOut)
			}
			return
		}
	case StateConnected:
		if to := c.timeout(); to >= 0 && now.Sub(c.lastRecv) >= to {
			c.state = StateConnectionTimedOut
			return
		}
	default:
		return
	}
	if !c.sentAny || now.Sub(c.lastSend) >= c.cfg.SendInterval {
		c.send1(now)
	}
}

// send1 sends the packet the current state calls for.
func (c *Client) send1(now time.Time) {
	switch c.state {
	case StateSendingRequest:
		c.queueRaw(now, c.request[:])
	case StateSendingResponse:
		c.sendEncrypted(now, PacketResponse, c.challenge[:])
	case StateConnected:
		var body [keepAliveBodySize]byte
		binary.LittleEndian.PutUint32(body[:], uint32(c.clientIndex))
		binary.LittleEndian.PutUint32(body[4:], uint32(c.maxClients))
		c.sendEncrypted(now, PacketKeepAlive, body[:])
	}
}

func (c *Client) queueRaw(now time.Time, raw []byte) {
	b := c.out.slot()
	if b == nil {
		c.stats.OutDropped++
		return
	}
	b = append(b, raw...)
	c.commit(now, b)
}

func (c *Client) commit(now time.Time, b []byte) {
	c.out.commit(c.serverAddr, b)
	c.lastSend = now
	c.sentAny = true
	c.stats.PacketsOut++
	c.stats.BytesOut += uint64(len(b))
}

func (c *Client) sendEncrypted(now time.Time, t PacketType, body []byte) {
	b := c.out.slot()
	if b == nil {
		c.stats.OutDropped++
		return
	}
	b = appendEncrypted(b, t, c.seq, body, c.send, c.token.ProtocolID, &c.sc)
	c.seq++
	c.commit(now, b)
}

// Receive processes one datagram from addr. A payload from the connected
// server is returned (a sub-slice of packet, decrypted in place); otherwise
// payload is nil. A non-nil error means the datagram was dropped.
func (c *Client) Receive(now time.Time, from netip.AddrPort, packet []byte) (payload []byte, err error) {
	c.stats.PacketsIn++
	c.stats.BytesIn += uint64(len(packet))
	payload, err = c.receive(now, normalizeAddr(from), packet)
	if err != nil {
		c.stats.Dropped.count(err)
	}
	return payload, err
}

func (c *Client) receive(now time.Time, from netip.AddrPort, p []byte) ([]byte, error) {
	var allowed uint8
	switch c.state {
	case StateSendingRequest:
		allowed = 1<<PacketDenied | 1<<PacketChallenge
	case StateSendingResponse:
		allowed = 1<<PacketDenied | 1<<PacketKeepAlive
	case StateConnected:
		allowed = 1<<PacketKeepAlive | 1<<PacketPayload | 1<<PacketDisconnect
	default:
		return nil, ErrNotConnected
	}
	if from != c.serverAddr {
		return nil, ErrUnknownAddress
	}
	h, body, err := openPacket(p, allowed, c.recv, c.token.ProtocolID, &c.window, &c.sc)
	if err != nil {
		return nil, err
	}
	switch h.typ {
	case PacketDenied:
		c.fail(now, StateDenied)
	case PacketChallenge:
		copy(c.challenge[:], body)
		c.state = StateSendingResponse
		c.lastRecv = now
		c.send1(now)
	case PacketKeepAlive:
		c.lastRecv = now
		if c.state == StateSendingResponse {
			c.clientIndex = int(binary.LittleEndian.Uint32(body))
			c.maxClients = int(binary.LittleEndian.Uint32(body[4:]))
			c.state = StateConnected
		}
	case PacketPayload:
		c.lastRecv = now
		c.stats.PayloadsIn++
		return body, nil
	case PacketDisconnect:
		c.state = StateDisconnected
	}
	return nil, nil
}

// SendPayload queues an encrypted payload (1 to MaxPayloadSize bytes) to the server.
func (c *Client) SendPayload(now time.Time, payload []byte) error {
	if c.state != StateConnected {
		return ErrNotConnected
	}
	if len(payload) < 1 || len(payload) > MaxPayloadSize {
		return ErrPayloadSize
	}
	c.sendEncrypted(now, PacketPayload, payload)
	c.stats.PayloadsOut++
	return nil
}

// Disconnect leaves the server: when connected it queues RedundantDisconnects
// disconnect packets. The client ends in StateDisconnected.
func (c *Client) Disconnect(now time.Time) {
	if c.state == StateConnected {
		for i := 0; i < c.cfg.RedundantDisconnects; i++ {
			c.sendEncrypted(now, PacketDisconnect, nil)
		}
	}
	if c.state > StateDisconnected {
		c.state = StateDisconnected
	}
}

// Transmit returns the next packet to send and its destination; the slice is
// valid until the next call of any Client method.
func (c *Client) Transmit() (packet []byte, to netip.AddrPort, ok bool) {
	return c.out.pop()
}

// NextUpdate returns the latest time by which Update should be called again.
func (c *Client) NextUpdate(now time.Time) time.Time {
	if c.state <= StateDisconnected {
		return now.Add(c.cfg.SendInterval)
	}
	next := c.lastSend.Add(c.cfg.SendInterval)
	if to := c.timeout(); to >= 0 {
		if t := c.lastRecv.Add(to); t.Before(next) {
			next = t
		}
	}
	if next.Before(now) {
		return now
	}
	return next
}
