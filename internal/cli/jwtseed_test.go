package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// operatorServer is an operator-mode server (an operator, one account in a memory resolver)
// and a user of that account: its JWT and seed.
func operatorServer(t *testing.T) (s *server.Server, userJWT string, userSeed []byte) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	okp, err := nkeys.CreateOperator()
	must(err)
	opub, _ := okp.PublicKey()
	oc := jwt.NewOperatorClaims(opub)
	akp, err := nkeys.CreateAccount()
	must(err)
	apub, _ := akp.PublicKey()
	ajwt, err := jwt.NewAccountClaims(apub).Encode(okp)
	must(err)
	ukp, err := nkeys.CreateUser()
	must(err)
	upub, _ := ukp.PublicKey()
	userJWT, err = jwt.NewUserClaims(upub).Encode(akp)
	must(err)
	userSeed, err = ukp.Seed()
	must(err)
	resolver := &server.MemAccResolver{}
	must(resolver.Store(apub, ajwt))
	s = startServer(t, func(o *server.Options) {
		o.JetStream = false
		o.TrustedOperators = []*jwt.OperatorClaims{oc}
		o.AccountResolver = resolver
	})
	return s, userJWT, userSeed
}

// TestJWTAndSeed: --jwt and --seed (files) authenticate against an operator-mode server; the
// seed and the JWT never show in the output or the Result; a wrong seed is refused by the
// server, a seed on the command line and a half pair by natsperf, each on one line.
func TestJWTAndSeed(t *testing.T) {
	s, userJWT, seed := operatorServer(t)
	dir := t.TempDir()
	jwtFile, seedFile := filepath.Join(dir, "user.jwt"), filepath.Join(dir, "user.nk")
	if err := os.WriteFile(jwtFile, []byte(userJWT), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	res, r := runJSON(context.Background(), t, "pubsub", "op.jwt", "-s", s.ClientURL(), "--msgs", "200", "--jwt", jwtFile, "--seed", seedFile, "-o", out)
	if r.code != exitOK || res.Groups[0].Aggregate.Msgs != 200 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	saved, _ := os.ReadFile(out)
	for _, secret := range []string{string(seed), userJWT} {
		if strings.Contains(r.out+r.err+string(saved), secret) {
			t.Errorf("the output or the Result holds the seed or the JWT")
		}
	}
	if !strings.Contains(string(saved), seedFile) {
		t.Errorf("the Result does not say which seed file the run used")
	}

	_, wrongSeed := func() (string, []byte) {
		kp, _ := nkeys.CreateUser()
		sd, _ := kp.Seed()
		return "", sd
	}()
	wrong := filepath.Join(dir, "other.nk")
	if err := os.WriteFile(wrong, wrongSeed, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a seed that did not sign the JWT", []string{"--jwt", jwtFile, "--seed", wrong}, exitFailed, "uthorization"},
		{"no credentials", nil, exitFailed, "uthorization"},
		{"the seed itself", []string{"--jwt", jwtFile, "--seed", string(seed)}, exitUsage, "file holding the seed"},
		{"a JWT without its seed", []string{"--jwt", jwtFile}, exitUsage, "jwt and seed go together"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(context.Background(), t, nil, append([]string{"pub", "op.jwt", "-s", s.ClientURL(), "--msgs", "10", "--connect-timeout", "2s"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.err, tt.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 1 {
				t.Fatalf("exit %d (want %d), stderr %q (want %q on one line)", r.code, tt.code, r.err, tt.want)
			}
			if strings.Contains(r.out+r.err, string(seed)) {
				t.Fatalf("the seed shows in the output")
			}
		})
	}
}

// TestSocksProxyCredentialsRefused: a proxy URL with a password is refused on one line (a
// Spec and a Result keep no credentials), without the password.
func TestSocksProxyCredentialsRefused(t *testing.T) {
	for _, cmd := range [][]string{{"pub", "foo", "--msgs", "1"}, {"spec", "pub", "foo"}} {
		r := run(context.Background(), t, nil, append(cmd, "--socks-proxy", "socks5://u:pw5ecret@127.0.0.1:1")...)
		if r.code != exitUsage || strings.Contains(r.out+r.err, "pw5ecret") || !strings.Contains(r.err, "socks_proxy") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", cmd, r.code, r.out, r.err)
		}
	}
}
