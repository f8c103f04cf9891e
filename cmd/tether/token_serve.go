package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/ops/mint"
)

// maxSecretFile bounds the bearer secret's file.
const maxSecretFile = 4 << 10

// serveTokens runs tether token -serve: the token service (package
// ops/mint) on addr, with the key at keyPath and the bearer secret at
// secretPath, until SIGINT or SIGTERM.
func serveTokens(addr, secretPath, keyPath string, allowReadable bool, logFormat string, cfg mint.Config, stdout io.Writer) error {
	log, err := newLogger(logFormat, stdout)
	if err != nil {
		return usageError{err}
	}
	if cfg.Key, err = readKeyFile(keyPath, allowReadable); err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	f, err := os.Open(secretPath)
	if err != nil {
		return fmt.Errorf("-secret-file: %w", err)
	}
	if !allowReadable {
		if err := privfile.CheckMode(f); err != nil {
			f.Close()
			return fmt.Errorf("-secret-file %s: %w: run chmod 600 %s, or pass -allow-readable-key", secretPath, err, secretPath)
		}
	}
	secret, err := privfile.ReadAll(f, secretPath, maxSecretFile)
	f.Close()
	if err != nil {
		return fmt.Errorf("-secret-file: %w", err)
	}
	cfg.Secret, cfg.Log = []byte(strings.TrimSpace(string(secret))), log
	h, err := mint.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-serve: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, MaxHeaderBytes: 8 << 10}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("serving tokens", "url", "http://"+ln.Addr().String()+"/v1/token", "protocol_id", fmt.Sprintf("%#x", cfg.ProtocolID), "rate", cfg.Rate)
	select {
	case err = <-served:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = hs.Shutdown(sctx)
	}
	st := h.Stats()
	log.Info("stopped", "minted", st.Minted, "unauthorized", st.Unauthorized, "limited", st.Limited, "bad_requests", st.BadRequests)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
