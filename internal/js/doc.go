// Package js holds natsperf's JetStream and KV workloads (publishers, consumers, direct gets,
// KV put/get) and the stream lifecycle around them: creating, marking, purging, filling and
// cleaning streams, buckets and consumers without ever touching what natsperf did not create.
package js
