package embedded

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// KeyEnv is the environment variable a JetStream encryption key is read from (natsperf server
// --js-encryption, and every command that starts the embedded server with it). A key on the
// command line would show in the process list; one in a Result or Spec would outlive the run.
const KeyEnv = "NATSPERF_JS_KEY"

// Encryption values: no encryption at rest, or nats-server's two ciphers.
const (
	EncryptionNone   = "none"
	EncryptionAES    = "aes"
	EncryptionChaCha = "chacha"
)

// KeyFromEnv is the JetStream key for a server encrypting with enc: the one in
// $NATSPERF_JS_KEY (getenv may be nil: none), else "" (Start generates one for the run).
func KeyFromEnv(getenv func(string) string, enc string) string {
	if enc == "" || enc == EncryptionNone || getenv == nil {
		return ""
	}
	return getenv(KeyEnv)
}

// ParseEncryption reads --js-encryption: none (or empty), aes or chacha.
func ParseEncryption(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", EncryptionNone:
		return "", nil
	case EncryptionAES, "aes-gcm":
		return EncryptionAES, nil
	case EncryptionChaCha, "chachapoly", "chacha20-poly1305":
		return EncryptionChaCha, nil
	}
	return "", fmt.Errorf("JetStream encryption must be none, aes or chacha, got %q", s)
}

// cipher is nats-server's cipher for an Encryption value (a valid one).
func cipher(enc string) server.StoreCipher {
	if enc == EncryptionAES {
		return server.AES
	}
	return server.ChaCha
}

// newKey is a fresh random key: 32 random bytes, hex (nats-server derives its keys from it).
func newKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate JetStream key: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Encryption is the cipher the servers encrypt their JetStream store with: "aes", "chacha",
// or "none".
func (c *Cluster) Encryption() string {
	if c.opts.Encryption == "" {
		return EncryptionNone
	}
	return c.opts.Encryption
}

// encryptionDescription is Describe's part on encryption; it never shows the key.
func (c *Cluster) encryptionDescription() string {
	if c.opts.Encryption == "" {
		return ""
	}
	from := "a key generated for this run"
	if c.opts.keyGiven {
		from = "the key in $" + KeyEnv
	}
	return fmt.Sprintf(", encrypted at rest (%s, %s)", cipher(c.opts.Encryption), from)
}
