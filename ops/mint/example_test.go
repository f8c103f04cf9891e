package mint_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops/mint"
)

// A matchmaker that allocated a server at 203.0.113.7:7311 asks the token
// service for player 42's token, and hands it to the player's client.
func Example() {
	h, err := mint.New(mint.Config{Key: netcode.Key{7}, ProtocolID: 0x7465746865720001, Secret: []byte("a secret only the backend knows"),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	svc := httptest.NewServer(h)
	defer svc.Close()

	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/v1/token", strings.NewReader(`{"client_id": 42, "servers": ["203.0.113.7:7311"]}`))
	req.Header.Set("Authorization", "Bearer a secret only the backend knows")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Token    []byte `json:"token"`
		ClientID uint64 `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&answer)
	var tok netcode.ConnectToken
	err = tok.UnmarshalBinary(answer.Token)
	fmt.Println(resp.Status, answer.ClientID, len(answer.Token), tok.ServerAddresses, err)
	// Output: 200 OK 42 2048 [203.0.113.7:7311] <nil>
}
