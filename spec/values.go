package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/units"
)

// Duration is a time.Duration written as Go writes it ("1.5s", "2m0s") and read from such a
// string ("90s", "500ms"), so spec files are readable; a bare number is not accepted.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalText writes the duration as time.Duration.String does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 2s or 500ms", b)
	}
	*d = Duration(v)
	return nil
}

// UnmarshalJSON refuses numbers, whose unit would be a guess.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not a duration: write it as a string such as \"2s\"", b)
	}
	return d.UnmarshalText([]byte(s))
}

// Size is a byte count. It is written as a number and read from a number or a string with a
// unit as the --size flag takes it ("16kb" is 16384: units are powers of 1024).
type Size int64

// UnmarshalJSON reads a number or a size string.
func (s *Size) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		n, err := units.ParseSize(str)
		if err != nil {
			return err
		}
		*s = Size(n)
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a size: want a whole number of bytes or a string such as \"16kb\"", b)
	}
	*s = Size(n)
	return nil
}

// Redacted is what a secret is written as.
const Redacted = "[redacted]"

// errSecret is returned when a serialised spec holds a secret.
var errSecret = errors.New("a password or token in a spec is refused: a spec never holds secrets; give them on the command line (--password, --token), in a creds or nkey file, or in a nats context")

// Secret is a password or token. A Go program may set one; it is written as "[redacted]", and
// a spec that holds any value for it is refused when read.
type Secret string

// MarshalText hides the value.
func (s Secret) MarshalText() ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	return []byte(Redacted), nil
}

// UnmarshalText refuses every value but the empty one.
func (s *Secret) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = ""
		return nil
	}
	return errSecret
}

// String hides the value from fmt.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString hides the value from %#v.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }
