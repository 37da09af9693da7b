// Package payload builds what a publisher sends: the payload (--size bytes, random bytes, or a
// file's bytes unchanged), the user's headers (--header K:V), and where the latency/loss stamp
// rides: at the payload's start, or in the Natsperf-Stamp header (stamp.Header) when the
// payload is the user's own or the run asks for it (--stamp header).
package payload

import (
	"crypto/rand"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/stamp"
)

// Config says what to send. The zero value is natsperf's classic payload: Size bytes with the
// stamp at its start.
type Config struct {
	Size int `json:"size"`
	// File's bytes are every message's payload, unchanged (--payload); the stamp rides in the
	// header. Size is then the file's length.
	File string `json:"file,omitempty"`
	// Random fills the payload with random bytes, incompressible (--payload-random).
	Random bool `json:"random,omitempty"`
	// Headers are added to every message, "K:V" each (--header).
	Headers []string `json:"headers,omitempty"`
	// InHeader puts the stamp in the Natsperf-Stamp header even when the payload could hold
	// it (--stamp header).
	InHeader bool `json:"stamp_in_header,omitempty"`
	// Fill is what follows the stamp in a payload of Size bytes (--payload-fill; zero: text).
	Fill stamp.Fill `json:"fill,omitempty"`
}

// StampInHeader reports whether the stamp rides in the header.
func (c Config) StampInHeader() bool { return c.InHeader || c.File != "" }

// ParseHeaders turns "K:V" strings into a header, as nats bench reads -H.
func ParseHeaders(kvs []string) (nats.Header, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	h := nats.Header{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("--header %q: want KEY:VALUE", kv)
		}
		if strings.EqualFold(k, stamp.Header) {
			return nil, fmt.Errorf("--header %s is natsperf's own (the stamp rides in it)", stamp.Header)
		}
		h.Add(k, strings.TrimSpace(v))
	}
	return h, nil
}

// Message is one publisher's message, rewritten in place for every send.
type Message struct {
	nats.Msg
	// Stamp is where a publisher writes the stamp: the payload, or a buffer Seal encodes into
	// the header. A stamp needs len(Stamp) >= stamp.Size; stamp.ExtSize for an extended one.
	Stamp    []byte
	inHeader bool
	st       [stamp.ExtSize]byte
	hex      [2 * stamp.ExtSize]byte
}

// New reads the file (if any) and builds the message. The header map is the message's own:
// a publisher may add its own headers (a message id) to it.
func New(c Config) (*Message, error) {
	m := &Message{}
	return m, m.init(c)
}

// CopyOf is a message like t with a payload and headers of its own (t's file is not read
// again): a slot of a ring of messages in flight. Build it in place (it points into itself).
func (m *Message) CopyOf(t *Message) {
	m.inHeader = t.inHeader
	m.Data = append([]byte(nil), t.Data...)
	m.Header = nil
	if t.Header != nil {
		m.Header = nats.Header{}
		for k, v := range t.Header {
			m.Header[k] = append([]string(nil), v...)
		}
	}
	m.Stamp = m.Data
	if m.inHeader {
		m.Stamp = m.st[:]
	}
}

func (m *Message) init(c Config) error {
	m.inHeader = c.StampInHeader()
	switch {
	case c.File != "":
		b, err := os.ReadFile(c.File)
		if err != nil {
			return fmt.Errorf("--payload: %w", err)
		}
		m.Data = b
	case c.Random:
		m.Data = make([]byte, c.Size)
		_, _ = rand.Read(m.Data)
	default:
		m.Data = c.Fill.Payload(c.Size)
	}
	h, err := ParseHeaders(c.Headers)
	if err != nil {
		return err
	}
	m.Header = h
	m.Stamp = m.Data
	if m.inHeader {
		if m.Header == nil {
			m.Header = nats.Header{}
		}
		m.Header[stamp.Header] = []string{""}
		m.Stamp = m.st[:]
	}
	return nil
}

// WithHeader is the message's header, made when it had none: for a publisher's own headers.
func (m *Message) WithHeader() nats.Header {
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	return m.Header
}

// Seal encodes the stamp written into Stamp into the header, when it rides there: after the
// stamp is written, before the publish. It allocates nothing (stamp.PutHex).
func (m *Message) Seal() {
	if !m.inHeader {
		return
	}
	n := stamp.Size
	if stamp.Extended(m.st[:]) {
		n = stamp.ExtSize
	}
	m.Header[stamp.Header][0] = stamp.PutHex(m.hex[:], m.st[:n])
}

// InHeader reports whether the stamp rides in the header.
func (m *Message) InHeader() bool { return m.inHeader }
