package netcode

import (
	"errors"
	"testing"
)

// A token's text form is base64 of its bytes; what is not base64 of a
// token is ErrMalformed.
func TestConnectTokenText(t *testing.T) {
	k := testKey()
	tok, err := NewConnectToken(testRand(1), &k, TokenParams{ProtocolID: testProtocol, ClientID: 7, ServerAddresses: katAddrs[:1], Now: testEpoch})
	if err != nil {
		t.Fatal(err)
	}
	text, err := tok.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back ConnectToken
	if err := back.UnmarshalText([]byte("  " + string(text) + "\n")); err != nil || back.ProtocolID != testProtocol || back.ExpireTimestamp != tok.ExpireTimestamp {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
	for _, bad := range []string{"", "not base64!", string(text[:100])} {
		if err := back.UnmarshalText([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%.20q: %v, want ErrMalformed", bad, err)
		}
	}
}
