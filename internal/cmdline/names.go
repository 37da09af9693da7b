package cmdline

import (
	"regexp"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// The server's own rules decide what a subject is; names of streams and buckets follow the
// server (isValidName, JSMaxNameLen) and nats.go (its stream name and bucket checks), whose
// checkers are not exported.

// checkSubject accepts a subject a subscription may use: wildcards as whole tokens ("*",
// a final ">").
func checkSubject(what, subject string) error {
	if !server.IsValidSubject(subject) {
		return usagef("%s %q is not a valid NATS subject (non-empty dot-separated tokens, no spaces, '>' only last)", what, subject)
	}
	return nil
}

// checkPublishSubject accepts only a literal subject: messages are published to one.
func checkPublishSubject(what, subject string) error {
	if err := checkSubject(what, subject); err != nil {
		return err
	}
	if !server.IsValidPublishSubject(subject) {
		return usagef("%s %q has a wildcard: publishing needs a literal subject", what, subject)
	}
	return nil
}

// checkStreamName accepts what both the server and nats.go accept as a stream name.
func checkStreamName(what, name string) error {
	switch {
	case name == "":
		return usagef("%s must not be empty", what)
	case len(name) > server.JSMaxNameLen:
		return usagef("%s is %d characters long; the server allows %d", what, len(name), server.JSMaxNameLen)
	case strings.ContainsAny(name, " \t\r\n\f.*>/\\"):
		return usagef("%s %q is not a valid stream name (no spaces, '.', '*', '>', '/' or '\\')", what, name)
	}
	return nil
}

// validBucket is nats.go's rule for KV bucket names.
var validBucket = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkBucketName accepts what nats.go accepts as a KV bucket name, short enough for its
// stream (KV_ + name) to be a valid stream name.
func checkBucketName(name string) error {
	switch {
	case name == "":
		return usagef("--bucket must not be empty")
	case len("KV_"+name) > server.JSMaxNameLen:
		return usagef("--bucket is %d characters long; at most %d fit the server's stream names", len(name), server.JSMaxNameLen-3)
	case !validBucket.MatchString(name):
		return usagef("--bucket %q is not a valid KV bucket name (letters, digits, '-' and '_' only)", name)
	}
	return nil
}
