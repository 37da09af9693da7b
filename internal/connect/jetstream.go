package connect

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Check refuses settings that cannot work together, naming the flags.
func (j JS) Check() error {
	switch {
	case j.Domain != "" && j.APIPrefix != "":
		return errors.New("--js-domain and --js-api-prefix both say where the JetStream API is: give one")
	case j.Timeout < 0:
		return errors.New("--timeout must not be negative")
	case strings.ContainsAny(j.Domain, " .*>"):
		return fmt.Errorf("--js-domain %q must be one subject token (no spaces, '.', '*' or '>')", j.Domain)
	case strings.ContainsAny(j.APIPrefix+j.InboxPrefix+j.EventPrefix, " *>"):
		return errors.New("--js-api-prefix, --js-event-prefix and --inbox-prefix must be literal subjects (no spaces or wildcards)")
	}
	return nil
}

// New opens a JetStream context on nc through the domain or API prefix, with the timeout.
// Every JetStream context natsperf opens (workloads, setup, clean-up) comes from here.
func (j JS) New(nc *nats.Conn, opts ...jetstream.JetStreamOpt) (jetstream.JetStream, error) {
	if j.Trace {
		opts = append(opts, jetstream.WithClientTrace(&jetstream.ClientTrace{
			RequestSent: func(subj string, payload []byte) { fmt.Fprintf(os.Stderr, ">>> %s\n%s\n\n", subj, payload) },
			ResponseReceived: func(subj string, payload []byte, _ nats.Header) {
				fmt.Fprintf(os.Stderr, "<<< %s\n%s\n\n", subj, payload)
			},
		}))
	}
	if j.Timeout > 0 {
		opts = append([]jetstream.JetStreamOpt{jetstream.WithDefaultTimeout(j.Timeout)}, opts...)
	}
	switch {
	case j.Domain != "":
		return jetstream.NewWithDomain(nc, j.Domain, opts...)
	case j.APIPrefix != "":
		return jetstream.NewWithAPIPrefix(nc, j.APIPrefix, opts...)
	}
	return jetstream.New(nc, opts...)
}

// API is the subject prefix of the JetStream API as js reaches it ("$JS.API." by default,
// "$JS.<domain>.API." in a domain, or the API prefix), for the requests natsperf words
// itself (direct batch gets, leader gets, stepdowns).
func API(js jetstream.JetStream) string {
	o := js.Options()
	switch {
	case o.Domain != "":
		return "$JS." + o.Domain + ".API."
	case o.APIPrefix != "" && o.APIPrefix != jetstream.DefaultAPIPrefix:
		return strings.TrimSuffix(o.APIPrefix, ".") + "."
	}
	return jetstream.DefaultAPIPrefix
}
