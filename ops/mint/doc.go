// Package mint serves connect tokens to a game's backend over HTTP: the
// matchmaker, once it has allocated a server (an Agones
// GameServerAllocation, say) and admitted a player, asks for a token that
// names that server's address, and hands it to the player's client.
//
// # The endpoint
//
// POST /v1/token with "Authorization: Bearer SECRET" and a JSON body
//
//	{"client_id": 42, "servers": ["203.0.113.7:7311"], "user_data": "base64, at most 256 bytes"}
//
// answers 200 with
//
//	{"token": "base64 of the 2048-byte connect token", "client_id": 42, "expires_at": "2026-01-02T15:04:05Z"}
//
// A request without the secret, or with another, gets 401 and mints
// nothing; authenticated requests beyond the rate limit get 429 with
// Retry-After; a body that is not such an object gets 400 naming the
// field. The secret is compared in constant time.
//
// # Audit
//
// Every token minted is logged (client id, servers, user data length,
// the caller's address, expiry); refused requests are logged at most once
// a second per kind, with the number refused since the last record, so a
// flood cannot flood the log. Stats counts them all.
//
// Serve it to the backend only (a cluster-internal address, or behind
// TLS): the bearer secret travels in every request.
package mint
