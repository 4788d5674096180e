package kafka

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
)

// scram implements SASL SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, without channel
// binding), as Kafka expects them. It is safe for concurrent use: each handshake gets its
// own state machine.
type scram struct {
	name     string
	hash     func() hash.Hash
	user     string
	password string
}

func newSCRAM(mechanism, user, password string) (*scram, error) {
	switch mechanism {
	case "scram-sha-256":
		return &scram{name: "SCRAM-SHA-256", hash: sha256.New, user: user, password: password}, nil
	case "scram-sha-512":
		return &scram{name: "SCRAM-SHA-512", hash: sha512.New, user: user, password: password}, nil
	}
	return nil, fmt.Errorf("unknown SCRAM mechanism %q", mechanism)
}

func (s *scram) Name() string { return s.name }

func (s *scram) Start(context.Context) (sasl.StateMachine, []byte, error) {
	nonce := make([]byte, 24)
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	c := &scramSession{m: s, nonce: base64.RawStdEncoding.EncodeToString(nonce)}
	user := strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s.user)
	c.firstBare = "n=" + user + ",r=" + c.nonce
	return c, []byte("n,," + c.firstBare), nil
}

type scramSession struct {
	m         *scram
	nonce     string
	firstBare string
	serverSig []byte
	step      int
}

func (c *scramSession) Next(_ context.Context, challenge []byte) (bool, []byte, error) {
	c.step++
	switch c.step {
	case 1:
		return c.clientFinal(string(challenge))
	case 2:
		attrs := parseSCRAM(string(challenge))
		if e, ok := attrs["e"]; ok {
			return false, nil, fmt.Errorf("scram: server error %q", e)
		}
		v, err := base64.StdEncoding.DecodeString(attrs["v"])
		if err != nil || !hmac.Equal(v, c.serverSig) {
			return false, nil, errors.New("scram: the server signature does not match")
		}
		return true, nil, nil
	}
	return false, nil, errors.New("scram: unexpected challenge")
}

func (c *scramSession) clientFinal(serverFirst string) (bool, []byte, error) {
	attrs := parseSCRAM(serverFirst)
	nonce, salt64, iters := attrs["r"], attrs["s"], attrs["i"]
	if !strings.HasPrefix(nonce, c.nonce) || len(nonce) == len(c.nonce) {
		return false, nil, errors.New("scram: invalid server nonce")
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil {
		return false, nil, fmt.Errorf("scram: invalid salt: %w", err)
	}
	n, err := strconv.Atoi(iters)
	if err != nil || n < 1 {
		return false, nil, fmt.Errorf("scram: invalid iteration count %q", iters)
	}
	h := c.m.hash
	salted, err := pbkdf2.Key(h, c.m.password, salt, n, h().Size())
	if err != nil {
		return false, nil, err
	}
	clientKey := hmacSum(h, salted, "Client Key")
	storedKey := h()
	storedKey.Write(clientKey)
	withoutProof := "c=biws,r=" + nonce
	authMsg := c.firstBare + "," + serverFirst + "," + withoutProof
	clientSig := hmacSum(h, storedKey.Sum(nil), authMsg)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ clientSig[i]
	}
	serverKey := hmacSum(h, salted, "Server Key")
	c.serverSig = hmacSum(h, serverKey, authMsg)
	return false, []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

func hmacSum(h func() hash.Hash, key []byte, msg string) []byte {
	m := hmac.New(h, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func parseSCRAM(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(part, "="); ok && len(k) == 1 {
			out[k] = v
		}
	}
	return out
}
