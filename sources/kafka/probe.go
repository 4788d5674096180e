package kafka

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl/plain"
)

// Probe checks, before anything else talks to the cluster, that a bootstrap broker answers
// as a Kafka broker: it connects (with TLS when configured), sends an ApiVersions request of
// its own and reads the first bytes of the answer, then connects as the consumer does
// (SASL included). Each broker gets cfg.ConnectTimeout. It returns nil once one broker
// passes, else an error naming every address and the likely cause: nothing listening, no
// answer, a peer that does not speak Kafka (an HTTP server, say), TLS against a plaintext
// listener or the reverse, a certificate or an authentication failure. kafka-go alone would
// wait for the rest of a garbage "response" of a claimed gigabyte, or report a bare EOF.
// The SASL password never appears in the error.
func Probe(ctx context.Context, cfg Config) error {
	var errs []string
	for _, addr := range cfg.Brokers {
		pctx, cancel := context.WithTimeout(ctx, cfg.connectTimeout())
		err := probeBroker(pctx, &cfg, addr)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		errs = append(errs, err.Error())
	}
	if len(errs) == 1 {
		return errors.New(errs[0])
	}
	return fmt.Errorf("no broker answered: %s", strings.Join(errs, "; "))
}

// apiVersionsV0 is an ApiVersions request, version 0, correlation id 0x45565354 ("EVST"),
// client id "evalstream-probe". Every Kafka broker answers it, before any authentication.
var apiVersionsV0 = func() []byte {
	const client = "evalstream-probe"
	b := binary.BigEndian.AppendUint32(nil, uint32(2+2+4+2+len(client)))
	b = binary.BigEndian.AppendUint16(b, 18) // ApiVersions
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint32(b, probeCorrelation)
	b = binary.BigEndian.AppendUint16(b, uint16(len(client)))
	return append(b, client...)
}()

const probeCorrelation = 0x45565354

func probeBroker(ctx context.Context, cfg *Config, addr string) error {
	timeout := cfg.connectTimeout()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			return fmt.Errorf("broker %s: no answer to connecting within connect_timeout (%v): is the address right, and the broker reachable from here?", addr, timeout)
		}
		return fmt.Errorf("broker %s: cannot connect: %w (is a Kafka broker listening there?)", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if tc.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			tc.ServerName = host
		}
		tconn := tls.Client(conn, tc)
		if err := tconn.HandshakeContext(ctx); err != nil {
			return tlsError(addr, timeout, err)
		}
		conn = tconn
	}
	if _, err := conn.Write(apiVersionsV0); err != nil {
		return fmt.Errorf("broker %s: sending a request: %w", addr, err)
	}
	var head [8]byte
	n, err := io.ReadFull(conn, head[:])
	switch {
	case err != nil && n == 0 && isTimeout(err):
		return fmt.Errorf("broker %s: accepted the connection but did not answer a Kafka request within connect_timeout (%v): it is not a Kafka listener%s", addr, timeout, tlsHint(cfg))
	case err != nil && n == 0:
		return fmt.Errorf("broker %s: closed the connection without answering a Kafka request (%v): it is not a Kafka listener%s", addr, err, tlsHint(cfg))
	case bytes.HasPrefix(head[:n], []byte("HTTP")):
		return fmt.Errorf("broker %s: answered with HTTP: it is an HTTP server, not a Kafka broker", addr)
	case cfg.TLS == nil && n >= 3 && head[0] == 0x15 && head[1] == 3:
		return fmt.Errorf("broker %s: answered with a TLS alert: it is a TLS listener; set source.tls", addr)
	case n < len(head):
		return fmt.Errorf("broker %s: answered %d bytes (%x) and then %v: it does not speak the Kafka protocol", addr, n, head[:n], err)
	}
	size, corr := binary.BigEndian.Uint32(head[:4]), binary.BigEndian.Uint32(head[4:])
	if corr != probeCorrelation || size < 4 || size > 1<<20 {
		return fmt.Errorf("broker %s: answered bytes that are not a Kafka response (%x, %q): it does not speak the Kafka protocol", addr, head, printable(head[:]))
	}
	// The peer speaks Kafka: now connect as the consumer does (SASL when configured).
	kc, err := cfg.dialer().DialContext(ctx, "tcp", addr)
	if err != nil {
		switch {
		case errors.Is(err, kafkago.IllegalSASLState):
			return fmt.Errorf("broker %s: SASL authentication failed%s: %w (the listener does not take SASL: remove source.sasl, or use the broker's SASL listener)", addr, saslWho(cfg), err)
		case errors.Is(err, kafkago.SASLAuthenticationFailed) || errors.Is(err, kafkago.UnsupportedSASLMechanism):
			return fmt.Errorf("broker %s: SASL authentication failed%s: %w", addr, saslWho(cfg), err)
		}
		if ctx.Err() != nil || isTimeout(err) {
			return fmt.Errorf("broker %s: connecting%s did not complete within connect_timeout (%v): %w", addr, saslWho(cfg), timeout, err)
		}
		return fmt.Errorf("broker %s: %w", addr, err)
	}
	defer kc.Close()
	// A listener that requires authentication answers ApiVersions (it comes before SASL)
	// and closes the connection on the next request.
	if _, err := kc.Brokers(); err != nil {
		if cfg.SASL == nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			return fmt.Errorf("broker %s: closed the connection on the first request (%v): the listener probably requires authentication (source.sasl)", addr, err)
		}
		return fmt.Errorf("broker %s: metadata request: %w", addr, err)
	}
	return nil
}

func tlsHint(cfg *Config) string {
	if cfg.TLS != nil {
		return ""
	}
	return " (or a TLS listener: then set source.tls)"
}

// saslWho names the SASL mechanism and user, never the password.
func saslWho(cfg *Config) string {
	if cfg.SASL == nil {
		return ""
	}
	who := " (mechanism " + cfg.SASL.Name()
	if u := saslUser(cfg); u != "" {
		who += ", user " + u
	}
	return who + ")"
}

func tlsError(addr string, timeout time.Duration, err error) error {
	var rh tls.RecordHeaderError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var inv x509.CertificateInvalidError
	switch {
	case errors.As(err, &rh):
		if bytes.HasPrefix(rh.RecordHeader[:], []byte("HTTP")) {
			return fmt.Errorf("broker %s: answered the TLS handshake with HTTP: it is an HTTP server, not a Kafka broker", addr)
		}
		return fmt.Errorf("broker %s: answered the TLS handshake with bytes that are not TLS (%x): it is not a TLS listener (a plaintext Kafka listener? then remove source.tls)", addr, rh.RecordHeader)
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &inv):
		return fmt.Errorf("broker %s: TLS certificate not accepted: %w (source.tls.ca_file names the CA that signed it)", addr, err)
	case isTimeout(err):
		return fmt.Errorf("broker %s: no answer to the TLS handshake within connect_timeout (%v): it is probably not a TLS listener (a plaintext Kafka listener waits for a request: then remove source.tls)", addr, timeout)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("broker %s: closed the connection during the TLS handshake (%v): it is most likely a plaintext listener (remove source.tls, or use the broker's TLS listener)", addr, err)
	}
	return fmt.Errorf("broker %s: TLS handshake: %w", addr, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// printable shows the bytes as text, dots for the others.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

func saslUser(cfg *Config) string {
	switch m := cfg.SASL.(type) {
	case plain.Mechanism:
		return m.Username
	case *scram:
		return m.user
	}
	return ""
}
