package js

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPatientlyRetriesNoResponders: a consumer start that meets "no responders" (a
// cluster still electing) is asked again; other errors are returned at once.
func TestPatientlyRetriesNoResponders(t *testing.T) {
	calls := 0
	flaky := func() (jetstream.ConsumeContext, error) {
		calls++
		if calls < 3 {
			return nil, nats.ErrNoResponders
		}
		return nil, nil
	}
	if _, err := patiently(context.Background(), flaky); err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls, want success on the 3rd", err, calls)
	}

	calls = 0
	bad := errors.New("consumer config invalid")
	final := func() (jetstream.ConsumeContext, error) { calls++; return nil, bad }
	if _, err := patiently(context.Background(), final); !errors.Is(err, bad) || calls != 1 {
		t.Fatalf("err %v after %d calls, want the error at once", err, calls)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	always := func() (jetstream.ConsumeContext, error) { return nil, nats.ErrNoResponders }
	begin := time.Now()
	if _, err := patiently(ctx, always); !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("err %v, want no responders once the context ends", err)
	}
	if waited := time.Since(begin); waited > 5*time.Second {
		t.Fatalf("waited %v after the context ended", waited)
	}
}
