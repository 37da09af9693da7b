package loop

import "context"

// A Step makes a paced sender's sends due by now (a Clock reading) and says what it did. It is
// called from one goroutine at a time, though not always the same one (see Run), so it may
// keep its state in the sender's variables without a lock.
type Step func(now int64) (Stepped, error)

// Stepped is what one Step did.
type Stepped struct {
	Next int64 // the intended send time of the sender's next message (Clock ns)
	Sent int   // how many it sent
	Done bool  // the sender has nothing left to send (its share is out, or its time is up)
}

// Run paces a sender: it waits for each send time, from first on, and calls step, until step
// is done or fails or ctx ends.
//
// While the process paces more senders than may sleep on their own, a sender whose sends are
// single (each step sends one: its messages are at least the precision apart, as with many
// clients at a modest rate) is stepped by the process's pacer itself, on the pacer's
// goroutine. A message then costs one goroutine hand-over, to nats.go's flusher, as in a bare
// loop publishing for every connection, instead of two: waking a sender's goroutine for each
// message cost a third more CPU with 50 clients (docs/performance.md), most of it in the Go
// scheduler's work stealing. A step that sends more than one (a batch within the precision,
// or a catch-up) hands the sender back to its own goroutine, so senders of batches publish in
// parallel. So does a step that blocks (a socket that does not drain holds nats.go's
// connection lock): the pacer's watch hands the rest to a new pacer goroutine after
// stallAfter, and the stuck sender goes on on its own goroutine for the rest of the run.
func (w *Waiter) Run(ctx context.Context, first int64, step Step) error {
	next, single := first, true
	for {
		if single && !w.stalled && w.shared() {
			out, err := ticks.serve(ctx, w, next, step)
			if err != nil || out.Done {
				return err
			}
			next, single = out.Next, false // handed back: this goroutine takes the next step
		}
		now, err := w.Until(ctx, next)
		if err != nil {
			return err
		}
		out, err := step(now)
		if err != nil || out.Done {
			return err
		}
		next, single = out.Next, out.Sent <= 1
	}
}
