package netcode

import (
	"crypto/cipher"
	"encoding/binary"
	"io"
	"net/netip"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// ServerConfig configures a Server. Fields left zero take the defaults shown.
type ServerConfig struct {
	// ProtocolID identifies the game; tokens and packets for another id are dropped.
	ProtocolID uint64
	// PrivateKey is shared with the backend that mints connect tokens. Required.
	PrivateKey Key
	// PublicAddress is the address clients send to; it must appear in the
	// server list of every token this server accepts. Required.
	PublicAddress netip.AddrPort
	// MaxClients is the number of client slots (default 64, range 1..4096).
	MaxClients int
	// MaxPending caps the encryption mappings of clients that sent a valid
	// request but are not yet connected (default 4*MaxClients, range 1..65536).
	MaxPending int
	// TokenHistory is how many connect tokens of admitted clients are
	// remembered, each until it expires, to refuse its second use. While
	// it holds this many unexpired tokens, requests are refused with
	// ErrTokenHistoryFull (a denied packet) rather than any forgotten: at
	// most TokenHistory clients are admitted per MaxTokenLife (default
	// 64*MaxClients, range 1..1<<20).
	TokenHistory int
	// KeepAliveInterval: a connected client that was sent nothing for this
	// long gets a keep-alive packet (default 100 ms, range 1 ms..10 s).
	KeepAliveInterval time.Duration
	// RedundantDisconnects is how many disconnect packets are sent when the
	// server disconnects a client (default 10, range 1..64).
	RedundantDisconnects int
	// MaxTokenLife caps how far in the future a connect token may expire:
	// a request whose token expires more than this after now is refused
	// with ErrTokenLife (default 1 h, range 1 s..30 days).
	MaxTokenLife time.Duration
	// MaxTimeout caps the connection timeout a token may set; a token
	// whose timeout is above it, zero or negative (no timeout, which would
	// pin a slot until restart) is refused with ErrTokenTimeout (default
	// 60 s, range 1 s..1 h).
	MaxTimeout time.Duration
	// ClientPacketRate and ClientByteRate are each connected client's
	// budget of datagrams and bytes per second; ClientBurst is how far
	// ahead of that rate a client may run (a bucket of rate·ClientBurst).
	// Datagrams beyond the budget are dropped before decryption and
	// counted as Dropped.OverBudget; only authenticated datagrams are
	// charged, so a forged source address cannot spend a client's budget.
	// Defaults: 250 datagrams/s, 128 KiB/s and 250 ms, several times what
	// a client sending inputs every 60 Hz frame and 10 clock pings a second
	// needs (ranges 1..100000, 1 KiB..100 MiB, 10 ms..10 s).
	ClientPacketRate int
	ClientByteRate   int
	ClientBurst      time.Duration
	// MaxOverBudget: a client whose datagrams are dropped over its budget
	// with no pause of ClientBurst for this long is disconnected, with an
	// *OverBudgetError as its event's reason (default 2 s, range
	// 100 ms..1 min). An honest client's burst pauses far sooner.
	MaxOverBudget time.Duration
	// UsedTokens are connect tokens a previous run of the server admitted
	// (see OnTokenUsed): they are refused with ErrTokenReused until they
	// expire, so a restart does not make a used token good again. They
	// count against TokenHistory; all are kept, even beyond it (new
	// requests are then refused until enough expire).
	UsedTokens []UsedToken
	// OnTokenUsed, if set, is called when a client is admitted, with its
	// connect token (a request alone records nothing). A driver that
	// persists them and passes them back in UsedTokens remembers used
	// tokens across restarts.
	OnTokenUsed func(UsedToken)
	// OnRefused, if set, is called when the server refuses a well-formed
	// connection request (or denies a response for lack of a slot), with
	// the sender and the reason: one of ErrVersion, ErrProtocolID,
	// ErrTokenExpired, ErrAuth (the token was not sealed with this
	// server's key), ErrTokenInvalid, ErrServerAddress, ErrTokenLife,
	// ErrTokenTimeout, ErrTokenReused, ErrAlreadyConnected, ErrServerFull,
	// ErrRefusingNew, ErrTokenHistoryFull or ErrPendingFull. It is called
	// from Receive; drivers rate-limit what they log.
	OnRefused func(from netip.AddrPort, reason error)
	// Rand supplies the challenge-token key. Required: pass
	// crypto/rand.Reader in production (the transport drivers do).
	Rand io.Reader
}

func (c *ServerConfig) resolve() error {
	if c.PrivateKey == (Key{}) {
		return &ConfigError{Field: "PrivateKey", Value: "all zero", Allowed: "a key from GenerateKey"}
	}
	if !validServerAddress(c.PublicAddress) {
		return &ConfigError{Field: "PublicAddress", Value: c.PublicAddress, Allowed: "a valid address and port"}
	}
	c.PublicAddress = normalizeAddr(c.PublicAddress)
	if c.Rand == nil {
		return &ConfigError{Field: "Rand", Value: nil, Allowed: "non-nil (crypto/rand.Reader)"}
	}
	if err := defaultInt(&c.MaxClients, "MaxClients", 64, 1, 4096); err != nil {
		return err
	}
	if err := defaultInt(&c.MaxPending, "MaxPending", 4*c.MaxClients, 1, 65536); err != nil {
		return err
	}
	if err := defaultInt(&c.TokenHistory, "TokenHistory", 64*c.MaxClients, 1, 1<<20); err != nil {
		return err
	}
	if err := defaultInt(&c.RedundantDisconnects, "RedundantDisconnects", 10, 1, 64); err != nil {
		return err
	}
	if err := defaultDuration(&c.MaxTokenLife, "MaxTokenLife", DefaultMaxTokenLife, time.Second, 30*24*time.Hour); err != nil {
		return err
	}
	if err := defaultDuration(&c.MaxTimeout, "MaxTimeout", DefaultMaxTimeout, time.Second, time.Hour); err != nil {
		return err
	}
	if err := defaultInt(&c.ClientPacketRate, "ClientPacketRate", 250, 1, 100000); err != nil {
		return err
	}
	if err := defaultInt(&c.ClientByteRate, "ClientByteRate", 128<<10, 1<<10, 100<<20); err != nil {
		return err
	}
	if err := defaultDuration(&c.ClientBurst, "ClientBurst", 250*time.Millisecond, 10*time.Millisecond, 10*time.Second); err != nil {
		return err
	}
	if err := defaultDuration(&c.MaxOverBudget, "MaxOverBudget", 2*time.Second, 100*time.Millisecond, time.Minute); err != nil {
		return err
	}
	return defaultDuration(&c.KeepAliveInterval, "KeepAliveInterval", 100*time.Millisecond, time.Millisecond, 10*time.Second)
}

func defaultInt(v *int, field string, def, lo, hi int) error {
	if *v == 0 {
		*v = def
	}
	if *v < lo || *v > hi {
		return &ConfigError{Field: field, Value: *v, Allowed: rangeText(lo, hi)}
	}
	return nil
}

func defaultDuration(v *time.Duration, field string, def, lo, hi time.Duration) error {
	if *v == 0 {
		*v = def
	}
	if *v < lo || *v > hi {
		return &ConfigError{Field: field, Value: *v, Allowed: "range [" + lo.String() + ", " + hi.String() + "]"}
	}
	return nil
}

func rangeText(lo, hi int) string {
	return "range [" + itoa(lo) + ", " + itoa(hi) + "]"
}

func itoa(v int) string {
	var b [20]byte
	return string(appendInt(b[:0], v))
}

func appendInt(b []byte, v int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// EventKind says what happened to a client slot.
type EventKind uint8

const (
	// EventConnected: a client completed the handshake and occupies a slot.
	EventConnected EventKind = iota + 1
	// EventDisconnected: a client left its slot; Reason says why
	// (ErrDisconnected, ErrTimeout, ErrClosed, or an *OverBudgetError).
	EventDisconnected
)

func (k EventKind) String() string {
	switch k {
	case EventConnected:
		return "connected"
	case EventDisconnected:
		return "disconnected"
	}
	return "EventKind(?)"
}

// Event reports a client connecting or disconnecting.
type Event struct {
	Kind     EventKind
	Client   int // slot index in [0, MaxClients)
	ClientID uint64
	Addr     netip.AddrPort
	Reason   error // for EventDisconnected
}

// DropCounts counts received datagrams that were dropped, by reason.
type DropCounts struct {
	Malformed, PacketType, Version, ProtocolID, Expired, Auth, Replay       uint64
	TokenInvalid, ServerAddress, TokenReused, AlreadyConnected, PendingFull uint64
	TokenLife, TokenTimeout, HistoryFull                                    uint64
	UnknownAddress, NotConnected                                            uint64
	// OverBudget counts datagrams from connected clients beyond their
	// ClientPacketRate or ClientByteRate.
	OverBudget uint64
}

// Total is the number of dropped datagrams.
func (d DropCounts) Total() uint64 {
	return d.Malformed + d.PacketType + d.Version + d.ProtocolID + d.Expired + d.Auth + d.Replay +
		d.TokenInvalid + d.ServerAddress + d.TokenReused + d.AlreadyConnected + d.PendingFull +
		d.TokenLife + d.TokenTimeout + d.HistoryFull + d.UnknownAddress + d.NotConnected + d.OverBudget
}

func (d *DropCounts) count(err error) {
	switch err {
	case ErrMalformed:
		d.Malformed++
	case ErrPacketType:
		d.PacketType++
	case ErrVersion:
		d.Version++
	case ErrProtocolID:
		d.ProtocolID++
	case ErrTokenExpired:
		d.Expired++
	case ErrAuth:
		d.Auth++
	case ErrReplay:
		d.Replay++
	case ErrTokenInvalid:
		d.TokenInvalid++
	case ErrServerAddress:
		d.ServerAddress++
	case ErrTokenReused:
		d.TokenReused++
	case ErrAlreadyConnected:
		d.AlreadyConnected++
	case ErrPendingFull:
		d.PendingFull++
	case ErrUnknownAddress:
		d.UnknownAddress++
	case ErrTokenLife:
		d.TokenLife++
	case ErrTokenTimeout:
		d.TokenTimeout++
	case ErrTokenHistoryFull:
		d.HistoryFull++
	case ErrOverBudget:
		d.OverBudget++
	default:
		d.NotConnected++
	}
}

// ServerStats are cumulative counters (and two gauges) of a Server.
type ServerStats struct {
	PacketsIn, BytesIn   uint64 // datagrams passed to Receive
	PacketsOut, BytesOut uint64 // datagrams queued for Transmit
	// UnauthBytesIn counts bytes of datagrams not from a connected client;
	// UnauthBytesOut the bytes of the replies they caused (challenge,
	// denied, and the keep-alive that answers a connection response).
	UnauthBytesIn, UnauthBytesOut uint64
	PayloadsIn, PayloadsOut       uint64
	Connects, Disconnects         uint64
	TimedOut, Denied              uint64
	OutDropped                    uint64 // packets lost because Transmit was not drained
	Dropped                       DropCounts
	Pending                       int // current pending encryption mappings (gauge)
	TokenHistory                  int // current remembered tokens (gauge)
}

type serverSlot struct {
	connected  bool
	confirmed  bool
	clientID   uint64
	addr       netip.AddrPort
	send, recv cipher.AEAD
	seq        uint64
	window     replayWindow
	lastRecv   time.Time
	lastSend   time.Time
	timeout    time.Duration
	userData   [UserDataSize]byte
	// Budget: the theoretical arrival times of the packet and byte buckets
	// (a generic cell rate algorithm); a datagram is refused while either
	// runs more than ClientBurst ahead of now.
	pktTAT, byteTAT time.Time
	// overBudget counts the datagrams dropped over budget; overSince and
	// overLast are the first and last drop of the current run of drops
	// (none more than ClientBurst apart).
	overBudget          uint64
	overSince, overLast time.Time
}

type pendingEntry struct {
	inUse      bool
	addr       netip.AddrPort
	c2s, s2c   Key
	send, recv cipher.AEAD
	lastAccess time.Time
	expire     uint64 // token expire timestamp, Unix seconds
	timeout    time.Duration
	token      [MACSize]byte
}

// UsedToken identifies a connect token the server saw used: the MAC of its
// sealed private part, and its expire timestamp (Unix seconds), after which
// it need not be remembered.
type UsedToken struct {
	MAC    [MACSize]byte
	Expire uint64
}

// tokenExpiry is a remembered token in the history's heap.
type tokenExpiry struct {
	expire uint64 // Unix seconds
	mac    [MACSize]byte
}

// globalSequenceStart seeds the sequence of packets sent before a client has
// a slot (challenge, denied), keeping their nonces disjoint from per-client
// sequences under the same key. It is set for every Server (erratum 3).
const globalSequenceStart = uint64(1) << 63

// Server is the sans-I/O netcode server: feed it datagrams with Receive,
// call Update as time passes, and send what Transmit returns. It is not
// safe for concurrent use; drivers serialise calls.
type Server struct {
	cfg           ServerConfig
	tokenAEAD     cipher.AEAD
	challengeAEAD cipher.AEAD
	challengeSeq  uint64
	globalSeq     uint64

	slots        []serverSlot
	byAddr       map[netip.AddrPort]int
	byID         map[uint64]int
	numConnected int
	refuseNew    bool // see RefuseNew

	pending       []pendingEntry
	pendingByAddr map[netip.AddrPort]int

	// history holds the tokens of admitted clients until they expire:
	// a set, and a min-heap by expire time to forget them in order.
	history  map[[MACSize]byte]struct{}
	byExpiry []tokenExpiry

	priv PrivateToken
	chal ChallengeToken
	body [challengeBodySize]byte
	sc   scratch

	out    outQueue
	events []Event
	evHead int
	stats  ServerStats
}

// NewServer returns a server with no clients.
func NewServer(cfg ServerConfig) (*Server, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, globalSeq: globalSequenceStart}
	var err error
	if s.tokenAEAD, err = chacha20poly1305.NewX(cfg.PrivateKey[:]); err != nil {
		return nil, err
	}
	ck, err := GenerateKey(cfg.Rand)
	if err != nil {
		return nil, err
	}
	s.challengeAEAD, _ = chacha20poly1305.New(ck[:])
	s.slots = make([]serverSlot, cfg.MaxClients)
	s.byAddr = make(map[netip.AddrPort]int, cfg.MaxClients)
	s.byID = make(map[uint64]int, cfg.MaxClients)
	s.pending = make([]pendingEntry, cfg.MaxPending)
	s.pendingByAddr = make(map[netip.AddrPort]int, cfg.MaxPending)
	s.history = make(map[[MACSize]byte]struct{}, min(cfg.TokenHistory, 1024))
	s.priv.ServerAddresses = make([]netip.AddrPort, 0, MaxServers)
	for _, u := range cfg.UsedTokens {
		s.remember(u)
	}
	s.out.limit = 2*cfg.MaxClients*cfg.RedundantDisconnects + 64
	return s, nil
}

// Config returns the resolved configuration (defaults filled in).
func (s *Server) Config() ServerConfig { return s.cfg }

// Stats returns a snapshot of the counters.
func (s *Server) Stats() ServerStats {
	st := s.stats
	st.Pending = len(s.pendingByAddr)
	st.TokenHistory = len(s.history)
	return st
}

// RefuseNew makes the server answer every new connection with a denied
// packet, as a full server does, and report ErrRefusingNew while refuse is
// true: a draining server keeps its clients and admits no others.
func (s *Server) RefuseNew(refuse bool) { s.refuseNew = refuse }

// admits returns why a new client cannot be admitted now, or nil: no free
// slot, RefuseNew, or a history full of unexpired tokens.
func (s *Server) admits(now time.Time) error {
	switch {
	case s.refuseNew:
		return ErrRefusingNew
	case s.numConnected >= s.cfg.MaxClients:
		return ErrServerFull
	}
	s.forgetExpired(now)
	if len(s.history) >= s.cfg.TokenHistory {
		return ErrTokenHistoryFull
	}
	return nil
}

// NumConnected is the number of occupied client slots.
func (s *Server) NumConnected() int { return s.numConnected }

// MaxClients is the number of client slots.
func (s *Server) MaxClients() int { return s.cfg.MaxClients }

// Connected reports whether slot client holds a connected client.
func (s *Server) Connected(client int) bool {
	return client >= 0 && client < len(s.slots) && s.slots[client].connected
}

// ClientID returns the client id of a connected slot (0 if none).
func (s *Server) ClientID(client int) uint64 {
	if !s.Connected(client) {
		return 0
	}
	return s.slots[client].clientID
}

// ClientAddr returns the address of a connected slot.
func (s *Server) ClientAddr(client int) netip.AddrPort {
	if !s.Connected(client) {
		return netip.AddrPort{}
	}
	return s.slots[client].addr
}

// UserData returns the user data from the connect token of a connected slot.
func (s *Server) UserData(client int) [UserDataSize]byte {
	if !s.Connected(client) {
		return [UserDataSize]byte{}
	}
	return s.slots[client].userData
}

// Transmit returns the next packet to send and its destination. The slice is
// valid until the next call of any Server method. Drivers call it until ok
// is false after every Receive, Update, SendPayload or Disconnect.
func (s *Server) Transmit() (packet []byte, to netip.AddrPort, ok bool) {
	return s.out.pop()
}

// PollEvent returns the next connect or disconnect event.
func (s *Server) PollEvent() (Event, bool) {
	if s.evHead == len(s.events) {
		s.events = s.events[:0]
		s.evHead = 0
		return Event{}, false
	}
	e := s.events[s.evHead]
	s.events[s.evHead] = Event{}
	s.evHead++
	return e, true
}

func (s *Server) emit(e Event) { s.events = append(s.events, e) }

func unixSeconds(t time.Time) uint64 {
	u := t.Unix()
	if u < 0 {
		return 0
	}
	return uint64(u)
}

// Receive processes one datagram from addr at time now. If it is a payload
// from a connected client, Receive returns the client's slot and the payload,
// a sub-slice of packet (encrypted packets are decrypted in place, so packet
// is modified). Otherwise payload is nil. A non-nil error means the datagram
// was dropped and says why; drops are also counted in Stats().Dropped.
// Receive does not allocate, except for two cipher objects when a valid
// request creates a new pending connection, one when a valid request is
// denied (a full server), and the token history's growth when a client is
// admitted.
func (s *Server) Receive(now time.Time, from netip.AddrPort, packet []byte) (client int, payload []byte, err error) {
	s.stats.PacketsIn++
	s.stats.BytesIn += uint64(len(packet))
	from = normalizeAddr(from)
	client, payload, err = s.receive(now, from, packet)
	if err != nil {
		s.stats.Dropped.count(err)
	}
	return client, payload, err
}

func (s *Server) receive(now time.Time, from netip.AddrPort, p []byte) (int, []byte, error) {
	if len(p) == 0 {
		return -1, nil, ErrMalformed
	}
	if idx, ok := s.byAddr[from]; ok {
		return s.receiveConnected(now, idx, p)
	}
	s.stats.UnauthBytesIn += uint64(len(p))
	if p[0] == byte(PacketRequest) {
		return -1, nil, s.receiveRequest(now, from, p)
	}
	pi, ok := s.pendingByAddr[from]
	if !ok {
		// Cheap structural checks first so garbage is rejected as malformed.
		// A client's packet from an address with no slot (a copy of its
		// redundant disconnect, a payload in flight when it timed out) is
		// from an unknown address; a type no client sends is the wrong type.
		if _, err := parseHeader(p, 1<<PacketResponse|serverAllowedConnected); err != nil {
			return -1, nil, err
		}
		return -1, nil, ErrUnknownAddress
	}
	return -1, nil, s.receiveResponse(now, pi, p)
}

const (
	serverAllowedConnected = 1<<PacketKeepAlive | 1<<PacketPayload | 1<<PacketDisconnect
)

func (s *Server) receiveConnected(now time.Time, idx int, p []byte) (int, []byte, error) {
	sl := &s.slots[idx]
	if p[0]&0x0f == byte(PacketResponse) || p[0] == byte(PacketRequest) {
		// The client has not seen our keep-alive yet; one is on its way.
		return -1, nil, ErrAlreadyConnected
	}
	// A disconnect always gets through: it ends the flood.
	if p[0]&0x0f != byte(PacketDisconnect) && (sl.pktTAT.Sub(now) > s.cfg.ClientBurst || sl.byteTAT.Sub(now) > s.cfg.ClientBurst) {
		s.overBudget(now, idx)
		return -1, nil, ErrOverBudget
	}
	h, body, err := openPacket(p, serverAllowedConnected, sl.recv, s.cfg.ProtocolID, &sl.window, &s.sc)
	if err != nil {
		return -1, nil, err
	}
	sl.pktTAT = later(sl.pktTAT, now).Add(time.Second / time.Duration(s.cfg.ClientPacketRate))
	sl.byteTAT = later(sl.byteTAT, now).Add(time.Duration(len(p)) * time.Second / time.Duration(s.cfg.ClientByteRate))
	sl.lastRecv = now
	switch h.typ {
	case PacketKeepAlive:
		sl.confirmed = true
		return idx, nil, nil
	case PacketPayload:
		sl.confirmed = true
		s.stats.PayloadsIn++
		return idx, body, nil
	default: // disconnect
		s.drop(idx, ErrDisconnected, false, now)
		return idx, nil, nil
	}
}

// overBudget counts a datagram of slot idx dropped over budget, and
// disconnects the client once its run of drops lasted MaxOverBudget.
func (s *Server) overBudget(now time.Time, idx int) {
	sl := &s.slots[idx]
	sl.overBudget++
	if sl.overLast.IsZero() || now.Sub(sl.overLast) > s.cfg.ClientBurst {
		sl.overSince = now
	}
	sl.overLast = now
	if d := now.Sub(sl.overSince); d >= s.cfg.MaxOverBudget {
		s.drop(idx, &OverBudgetError{Dropped: sl.overBudget, For: d}, true, now)
	}
}

// ClientOverBudget returns how many datagrams of a connected slot were
// dropped over its budget (0 if none is connected).
func (s *Server) ClientOverBudget(client int) uint64 {
	if !s.Connected(client) {
		return 0
	}
	return s.slots[client].overBudget
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// receiveRequest handles a connection request; a refusal of a well-formed
// one is reported to OnRefused.
func (s *Server) receiveRequest(now time.Time, from netip.AddrPort, p []byte) error {
	err := s.checkRequest(now, from, p)
	if err != nil && err != ErrMalformed && s.cfg.OnRefused != nil {
		s.cfg.OnRefused(from, err)
	}
	return err
}

func (s *Server) checkRequest(now time.Time, from netip.AddrPort, p []byte) error {
	req, err := parseRequest(p)
	if err != nil {
		return err
	}
	if req.protocolID != s.cfg.ProtocolID {
		return ErrProtocolID
	}
	if req.expire <= unixSeconds(now) {
		return ErrTokenExpired
	}
	if req.expire-unixSeconds(now) > uint64(s.cfg.MaxTokenLife/time.Second) {
		return ErrTokenLife
	}
	if err := openPrivate(&s.priv, req.private, s.tokenAEAD, req.protocolID, req.expire, req.nonce, &s.sc); err != nil {
		return err
	}
	listed := false
	for _, a := range s.priv.ServerAddresses {
		if normalizeAddr(a) == s.cfg.PublicAddress {
			listed = true
			break
		}
	}
	if !listed {
		return ErrServerAddress
	}
	if t := s.priv.TimeoutSeconds; t <= 0 || int64(t) > int64(s.cfg.MaxTimeout/time.Second) {
		return ErrTokenTimeout
	}
	if _, ok := s.byID[s.priv.ClientID]; ok {
		return ErrAlreadyConnected
	}
	var mac [MACSize]byte
	copy(mac[:], req.private[PrivateTokenSize-MACSize:])
	if s.tokenUsed(mac, from) {
		return ErrTokenReused
	}
	if err := s.admits(now); err != nil {
		aead, _ := chacha20poly1305.New(s.priv.ServerToClientKey[:])
		s.sendGlobal(from, PacketDenied, nil, aead)
		s.stats.Denied++
		return err
	}
	pe, err := s.pendingFor(now, from)
	if err != nil {
		return err
	}
	if !pe.inUse || pe.c2s != s.priv.ClientToServerKey || pe.s2c != s.priv.ServerToClientKey {
		pe.c2s = s.priv.ClientToServerKey
		pe.s2c = s.priv.ServerToClientKey
		pe.send, _ = chacha20poly1305.New(pe.s2c[:])
		pe.recv, _ = chacha20poly1305.New(pe.c2s[:])
	}
	pe.inUse = true
	pe.addr = from
	pe.lastAccess = now
	pe.expire = req.expire
	pe.timeout = time.Duration(s.priv.TimeoutSeconds) * time.Second
	pe.token = mac

	s.chal.ClientID = s.priv.ClientID
	s.chal.UserData = s.priv.UserData
	body := binary.LittleEndian.AppendUint64(s.body[:0], s.challengeSeq)
	body = sealChallenge(body, &s.chal, s.challengeAEAD, s.challengeSeq, &s.sc)
	s.challengeSeq++
	s.sendGlobal(from, PacketChallenge, body, pe.send)
	return nil
}

// tokenUsed reports whether the token with this MAC admitted a client
// (whether it is still connected, left, or was admitted before a restart),
// or is pending from an address other than addr.
func (s *Server) tokenUsed(mac [MACSize]byte, addr netip.AddrPort) bool {
	if _, ok := s.history[mac]; ok {
		return true
	}
	for i := range s.pending {
		if pe := &s.pending[i]; pe.inUse && pe.token == mac && pe.addr != addr {
			return true
		}
	}
	return false
}

// remember adds u to the token history until it expires.
func (s *Server) remember(u UsedToken) {
	if _, ok := s.history[u.MAC]; ok {
		return
	}
	s.history[u.MAC] = struct{}{}
	h := append(s.byExpiry, tokenExpiry{expire: u.Expire, mac: u.MAC})
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if h[up].expire <= h[i].expire {
			break
		}
		h[up], h[i] = h[i], h[up]
		i = up
	}
	s.byExpiry = h
}

// forgetExpired removes the tokens expired at now from the history, the
// soonest first.
func (s *Server) forgetExpired(now time.Time) {
	h := s.byExpiry
	for len(h) > 0 && h[0].expire <= unixSeconds(now) {
		delete(s.history, h[0].mac)
		last := len(h) - 1
		h[0], h[last] = h[last], tokenExpiry{}
		h = h[:last]
		for i := 0; ; {
			c := 2*i + 1
			if c >= len(h) {
				break
			}
			if c+1 < len(h) && h[c+1].expire < h[c].expire {
				c++
			}
			if h[i].expire <= h[c].expire {
				break
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	s.byExpiry = h
}

// pendingFor returns the pending entry of addr, or a free (or expired) one.
func (s *Server) pendingFor(now time.Time, addr netip.AddrPort) (*pendingEntry, error) {
	if i, ok := s.pendingByAddr[addr]; ok {
		return &s.pending[i], nil
	}
	if len(s.pendingByAddr) >= len(s.pending) {
		s.expirePending(now)
	}
	for i := range s.pending {
		if !s.pending[i].inUse {
			s.pendingByAddr[addr] = i
			return &s.pending[i], nil
		}
	}
	return nil, ErrPendingFull
}

func (s *Server) pendingExpired(pe *pendingEntry, now time.Time) bool {
	if pe.expire <= unixSeconds(now) {
		return true
	}
	return now.Sub(pe.lastAccess) > pe.timeout
}

func (s *Server) expirePending(now time.Time) {
	for i := range s.pending {
		pe := &s.pending[i]
		if pe.inUse && s.pendingExpired(pe, now) {
			delete(s.pendingByAddr, pe.addr)
			*pe = pendingEntry{}
		}
	}
}

func (s *Server) receiveResponse(now time.Time, pi int, p []byte) error {
	pe := &s.pending[pi]
	if s.pendingExpired(pe, now) {
		delete(s.pendingByAddr, pe.addr)
		*pe = pendingEntry{}
		return ErrTokenExpired
	}
	_, body, err := openPacket(p, 1<<PacketResponse, pe.recv, s.cfg.ProtocolID, nil, &s.sc)
	if err != nil {
		return err
	}
	seq := binary.LittleEndian.Uint64(body)
	if err := openChallenge(&s.chal, body[8:], s.challengeAEAD, seq, &s.sc); err != nil {
		return err
	}
	pe.lastAccess = now
	if _, ok := s.byID[s.chal.ClientID]; ok {
		return ErrAlreadyConnected
	}
	if err := s.admits(now); err != nil {
		s.sendGlobal(pe.addr, PacketDenied, nil, pe.send)
		s.stats.Denied++
		if s.cfg.OnRefused != nil {
			s.cfg.OnRefused(pe.addr, err)
		}
		return err
	}
	u := UsedToken{MAC: pe.token, Expire: pe.expire}
	s.remember(u)
	if s.cfg.OnTokenUsed != nil {
		s.cfg.OnTokenUsed(u)
	}
	idx := 0
	for idx < len(s.slots) && s.slots[idx].connected {
		idx++
	}
	sl := &s.slots[idx]
	*sl = serverSlot{
		connected: true,
		clientID:  s.chal.ClientID,
		addr:      pe.addr,
		send:      pe.send,
		recv:      pe.recv,
		lastRecv:  now,
		timeout:   pe.timeout,
		userData:  s.chal.UserData,
	}
	s.byAddr[sl.addr] = idx
	s.byID[sl.clientID] = idx
	s.numConnected++
	delete(s.pendingByAddr, pe.addr)
	*pe = pendingEntry{}
	s.stats.Connects++
	before := s.stats.BytesOut
	s.sendKeepAlive(now, sl, idx)
	s.stats.UnauthBytesOut += s.stats.BytesOut - before
	s.emit(Event{Kind: EventConnected, Client: idx, ClientID: sl.clientID, Addr: sl.addr})
	return nil
}

func (s *Server) sendGlobal(to netip.AddrPort, t PacketType, body []byte, aead cipher.AEAD) {
	b := s.out.slot()
	if b == nil {
		s.stats.OutDropped++
		return
	}
	b = appendEncrypted(b, t, s.globalSeq, body, aead, s.cfg.ProtocolID, &s.sc)
	s.globalSeq++
	s.out.commit(to, b)
	s.stats.PacketsOut++
	s.stats.BytesOut += uint64(len(b))
	s.stats.UnauthBytesOut += uint64(len(b))
}

func (s *Server) sendToSlot(now time.Time, sl *serverSlot, t PacketType, body []byte) {
	b := s.out.slot()
	if b == nil {
		s.stats.OutDropped++
		return
	}
	b = appendEncrypted(b, t, sl.seq, body, sl.send, s.cfg.ProtocolID, &s.sc)
	sl.seq++
	sl.lastSend = now
	s.out.commit(sl.addr, b)
	s.stats.PacketsOut++
	s.stats.BytesOut += uint64(len(b))
}

func (s *Server) sendKeepAlive(now time.Time, sl *serverSlot, idx int) {
	var body [keepAliveBodySize]byte
	binary.LittleEndian.PutUint32(body[:], uint32(idx))
	binary.LittleEndian.PutUint32(body[4:], uint32(s.cfg.MaxClients))
	s.sendToSlot(now, sl, PacketKeepAlive, body[:])
}

// SendPayload queues an encrypted payload packet (1 to MaxPayloadSize bytes)
// for a connected client. Until the client has confirmed its slot, each
// payload is preceded by a keep-alive, as the standard requires.
func (s *Server) SendPayload(now time.Time, client int, payload []byte) error {
	if !s.Connected(client) {
		return ErrNotConnected
	}
	if len(payload) < 1 || len(payload) > MaxPayloadSize {
		return ErrPayloadSize
	}
	sl := &s.slots[client]
	if !sl.confirmed {
		s.sendKeepAlive(now, sl, client)
	}
	s.sendToSlot(now, sl, PacketPayload, payload)
	s.stats.PayloadsOut++
	return nil
}

// Disconnect sends RedundantDisconnects disconnect packets to a connected
// client and frees its slot; an EventDisconnected with ErrClosed follows.
func (s *Server) Disconnect(now time.Time, client int) error {
	if !s.Connected(client) {
		return ErrNotConnected
	}
	s.drop(client, ErrClosed, true, now)
	return nil
}

// DisconnectAll disconnects every connected client.
func (s *Server) DisconnectAll(now time.Time) {
	for i := range s.slots {
		if s.slots[i].connected {
			s.drop(i, ErrClosed, true, now)
		}
	}
}

func (s *Server) drop(idx int, reason error, notify bool, now time.Time) {
	sl := &s.slots[idx]
	if notify {
		for i := 0; i < s.cfg.RedundantDisconnects; i++ {
			s.sendToSlot(now, sl, PacketDisconnect, nil)
		}
	}
	s.emit(Event{Kind: EventDisconnected, Client: idx, ClientID: sl.clientID, Addr: sl.addr, Reason: reason})
	delete(s.byAddr, sl.addr)
	delete(s.byID, sl.clientID)
	*sl = serverSlot{}
	s.numConnected--
	s.stats.Disconnects++
	if reason == ErrTimeout {
		s.stats.TimedOut++
	}
}

// Update advances the server to now: it disconnects clients that sent
// nothing within their timeout, sends keep-alives to clients that were sent
// nothing for KeepAliveInterval, and expires pending connections.
func (s *Server) Update(now time.Time) {
	for i := range s.slots {
		sl := &s.slots[i]
		if !sl.connected {
			continue
		}
		if now.Sub(sl.lastRecv) > sl.timeout {
			s.drop(i, ErrTimeout, true, now)
			continue
		}
		if now.Sub(sl.lastSend) >= s.cfg.KeepAliveInterval {
			s.sendKeepAlive(now, sl, i)
		}
	}
	if len(s.pendingByAddr) > 0 {
		s.expirePending(now)
	}
	s.forgetExpired(now)
}

// NextUpdate returns the latest time by which Update should be called again:
// the next keep-alive or timeout due. With no clients it is now + KeepAliveInterval.
func (s *Server) NextUpdate(now time.Time) time.Time {
	next := now.Add(s.cfg.KeepAliveInterval)
	for i := range s.slots {
		sl := &s.slots[i]
		if !sl.connected {
			continue
		}
		if t := sl.lastSend.Add(s.cfg.KeepAliveInterval); t.Before(next) {
			next = t
		}
		if t := sl.lastRecv.Add(sl.timeout + time.Nanosecond); t.Before(next) {
			next = t
		}
	}
	if next.Before(now) {
		return now
	}
	return next
}
