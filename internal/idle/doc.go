// Package idle decides when a receiver has gone idle: nothing arrived for its idle timeout
// once messages started (or once the producers are done, or from the start when the messages
// were stored before the run). A connection that is down is never idle: the clock restarts
// when it is back, and one given up is a failure (harness.Conn.Lost).
package idle
