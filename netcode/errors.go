package netcode

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Every error returned by this package matches one of these
// with errors.Is; packets that are dropped report why through them.
var (
	// ErrMalformed: the packet or token does not have a valid layout.
	ErrMalformed = errors.New("tether/netcode: malformed packet")
	// ErrPacketType: a well-formed packet of a type that is not accepted in
	// the current state (for example a challenge packet sent to a server).
	ErrPacketType = errors.New("tether/netcode: unexpected packet type")
	// ErrVersion: the version info is not "NETCODE 1.02".
	ErrVersion = errors.New("tether/netcode: wrong version info")
	// ErrProtocolID: the protocol id does not match the configured one.
	ErrProtocolID = errors.New("tether/netcode: wrong protocol id")
	// ErrTokenExpired: the connect token's expire timestamp has passed.
	ErrTokenExpired = errors.New("tether/netcode: token expired")
	// ErrAuth: AEAD authentication failed (wrong key, tampering or forgery).
	ErrAuth = errors.New("tether/netcode: authentication failed")
	// ErrReplay: the packet's sequence number was already received or is
	// older than the replay window.
	ErrReplay = errors.New("tether/netcode: replayed packet")
	// ErrTokenInvalid: a decrypted token has invalid contents, or a connect
	// token handed to a client is inconsistent.
	ErrTokenInvalid = errors.New("tether/netcode: invalid connect token")
	// ErrServerAddress: the server's public address is not listed in the token.
	ErrServerAddress = errors.New("tether/netcode: server address not in token")
	// ErrTokenReused: the connect token is pending from another address,
	// or it admitted a client, connected or gone (or before the server
	// restarted: ServerConfig.UsedTokens); refused until it expires.
	ErrTokenReused = errors.New("tether/netcode: connect token already used")
	// ErrTokenLife: the connect token expires further in the future than
	// the server allows (ServerConfig.MaxTokenLife).
	ErrTokenLife = errors.New("tether/netcode: token expires too late")
	// ErrTokenTimeout: the connect token's timeout is zero, negative (none)
	// or above the server's ServerConfig.MaxTimeout.
	ErrTokenTimeout = errors.New("tether/netcode: token timeout out of range")
	// ErrOverBudget: a connected client sent beyond its packet or byte
	// budget (ServerConfig.ClientPacketRate, ClientByteRate); dropped.
	ErrOverBudget = errors.New("tether/netcode: client over its budget")
	// ErrAlreadyConnected: the address or client id already occupies a slot.
	ErrAlreadyConnected = errors.New("tether/netcode: already connected")
	// ErrServerFull: no client slot was free; a denied packet was sent.
	ErrServerFull = errors.New("tether/netcode: server full")
	// ErrRefusingNew: the server admits no new clients (Server.RefuseNew,
	// as while draining); a denied packet was sent.
	ErrRefusingNew = errors.New("tether/netcode: not admitting new clients")
	// ErrTokenHistoryFull: the server remembers ServerConfig.TokenHistory
	// unexpired tokens of admitted clients and forgets none before it
	// expires; a denied packet was sent.
	ErrTokenHistoryFull = errors.New("tether/netcode: token history full")
	// ErrPendingFull: the pending-connection table is full; request ignored.
	ErrPendingFull = errors.New("tether/netcode: too many pending connections")
	// ErrUnknownAddress: an encrypted packet from an address with no
	// encryption mapping (or, on a client, not from the server).
	ErrUnknownAddress = errors.New("tether/netcode: packet from unknown address")
	// ErrNotConnected: the operation needs a connected client.
	ErrNotConnected = errors.New("tether/netcode: not connected")
	// ErrPayloadSize: a payload outside [1, MaxPayloadSize] bytes.
	ErrPayloadSize = errors.New("tether/netcode: payload size out of range")
	// ErrTimeout: a connection or handshake timed out (event reason).
	ErrTimeout = errors.New("tether/netcode: timed out")
	// ErrDisconnected: the peer sent a disconnect packet (event reason).
	ErrDisconnected = errors.New("tether/netcode: disconnected by peer")
	// ErrClosed: the local side disconnected (event reason).
	ErrClosed = errors.New("tether/netcode: disconnected locally")
	// ErrDenied: the server answered with a connection denied packet.
	ErrDenied = errors.New("tether/netcode: connection denied")
	// ErrConfig: a configuration field is out of range; the error is a
	// *ConfigError naming the field.
	ErrConfig = errors.New("tether/netcode: invalid config")
)

// OverBudgetError is the reason a client was disconnected for sending
// over its budget for ServerConfig.MaxOverBudget. It matches
// ErrOverBudget with errors.Is.
type OverBudgetError struct {
	Dropped uint64        // the client's datagrams dropped over its budget
	For     time.Duration // how long its last run of drops lasted
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("tether/netcode: client over its budget for %v (%d datagrams dropped)", e.For.Round(time.Millisecond), e.Dropped)
}

// Is reports whether target is ErrOverBudget.
func (e *OverBudgetError) Is(target error) bool { return target == ErrOverBudget }

// ConfigError reports a configuration field outside its allowed range.
// It matches ErrConfig with errors.Is.
type ConfigError struct {
	Field   string // the field name, e.g. "MaxClients"
	Value   any    // the rejected value
	Allowed string // the allowed range or requirement
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/netcode: config %s = %v: %s", e.Field, e.Value, e.Allowed)
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }
