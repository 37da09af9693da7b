package connect

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// jwtAndSeed is the nats CLI's --jwt/--seed pair, both files: a JWT or seed on the command
// line would show in the process list. Both
// are read now, to fail by flag before any dial, and again on every (re)connect through
// nats.UserJWT, as nats.UserCredentials does, so the seed is held only while signing.
func (s Settings) jwtAndSeed() (nats.Option, error) {
	switch {
	case s.JWT == "":
		return nil, fmt.Errorf("%s needs %s (the user JWT the seed signs for)", flagSeed, flagJWT)
	case s.Seed == "":
		return nil, fmt.Errorf("%s needs %s (a file holding the user's nkey seed)", flagJWT, flagSeed)
	case strings.HasPrefix(strings.TrimSpace(s.Seed), "SU"):
		return nil, fmt.Errorf("%s takes a file holding the seed, not the seed itself: a seed on the command line shows in the process list", flagSeed)
	}
	jwtOf := func() (string, error) { return readJWT(s.JWT) }
	sign := func(nonce []byte) ([]byte, error) { return signWithSeed(s.Seed, nonce) }
	if _, err := jwtOf(); err != nil {
		return nil, fmt.Errorf("%s: %w", flagJWT, err)
	}
	if _, err := sign([]byte("check")); err != nil {
		return nil, fmt.Errorf("%s: %w", flagSeed, err)
	}
	return nats.UserJWT(jwtOf, sign), nil
}

// readJWT reads the JWT from file (a bare JWT or a decorated creds-style file). Files only,
// unlike the nats CLI: a bearer JWT is a credential and must not show in the process list.
func readJWT(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	jwt, err := nkeys.ParseDecoratedJWT(b)
	if err != nil || strings.Count(strings.TrimSpace(jwt), ".") != 2 {
		return "", fmt.Errorf("%s: no JWT found", file)
	}
	return strings.TrimSpace(jwt), nil
}

// signWithSeed signs nonce with the seed in file (a bare seed or a decorated one).
func signWithSeed(file string, nonce []byte) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	defer wipe(b)
	kp, err := nkeys.ParseDecoratedNKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	defer kp.Wipe()
	if _, err := kp.Seed(); err != nil {
		return nil, errors.New(file + ": no seed found (a public key cannot sign)")
	}
	return kp.Sign(nonce)
}
