package natstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// Operator makes an operator, one account and one user of it: it returns the options that put
// a server in operator (JWT) mode trusting that operator, and the path of the user's creds file.
func Operator(t testing.TB) (configure func(*server.Options), creds string) {
	t.Helper()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("operator: %v", err)
		}
	}
	okp, err := nkeys.CreateOperator()
	check(err)
	opub, err := okp.PublicKey()
	check(err)
	ojwt, err := jwt.NewOperatorClaims(opub).Encode(okp)
	check(err)
	oc, err := jwt.DecodeOperatorClaims(ojwt)
	check(err)

	akp, err := nkeys.CreateAccount()
	check(err)
	apub, err := akp.PublicKey()
	check(err)
	ajwt, err := jwt.NewAccountClaims(apub).Encode(okp)
	check(err)
	resolver := &server.MemAccResolver{}
	check(resolver.Store(apub, ajwt))

	ukp, err := nkeys.CreateUser()
	check(err)
	upub, err := ukp.PublicKey()
	check(err)
	ujwt, err := jwt.NewUserClaims(upub).Encode(akp)
	check(err)
	seed, err := ukp.Seed()
	check(err)
	file, err := jwt.FormatUserConfig(ujwt, seed)
	check(err)
	creds = filepath.Join(t.TempDir(), "user.creds")
	check(os.WriteFile(creds, file, 0o600))
	return func(o *server.Options) {
		o.TrustedOperators, o.AccountResolver = []*jwt.OperatorClaims{oc}, resolver
	}, creds
}
