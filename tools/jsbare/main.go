// Command jsbare runs the bare nats.go jetstream loops natsperf's JetStream and KV workloads are
// compared with (docs/performance.md): the same operation, no measurement machinery. It prints
// one line, "<msgs/sec>", so a script can alternate it with natsperf against one server.
//
//	jsbare -s nats://127.0.0.1:4222 -op pub-async -msgs 100000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

func main() {
	url := flag.String("s", nats.DefaultURL, "server URL")
	op := flag.String("op", "pub-async", "pub-sync, pub-async, pub-batch, ordered, consume, fetch, get-sync, get-batch, kv-put, kv-get")
	msgs := flag.Int("msgs", 100_000, "messages")
	size := flag.Int("size", 128, "payload size")
	batch := flag.Int("batch", 500, "async window / atomic batch / fetch / get batch size")
	stream := flag.String("stream", "benchstream", "stream")
	subject := flag.String("subject", "bare", "subject to publish to")
	heap := flag.Int("heap", 0, "bytes of live heap to hold during the run (natsperf's recorders hold ~650 KB)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "jsbare:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ballast := make([]int64, max(*heap, 0)/8) // pointer-free: only the GC pacing sees it
	rate, err := runOp(*url, *op, *stream, *subject, *msgs, *size, *batch)
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "jsbare:", err)
		os.Exit(1)
	}
	runtime.KeepAlive(ballast)
	fmt.Printf("%.0f\n", rate)
}

func runOp(url, op, stream, subject string, n, size, batch int) (float64, error) {
	ctx := context.Background()
	nc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, err
	}
	data := make([]byte, size)
	var start time.Time
	done := func() float64 { return float64(n) / time.Since(start).Seconds() }
	switch op {
	case "pub-sync":
		start = time.Now()
		for i := 0; i < n; i++ {
			if _, err := js.Publish(ctx, subject, data); err != nil {
				return 0, err
			}
		}
		return done(), nil
	case "pub-async":
		start = time.Now()
		for i := 0; i < n; {
			for j := 0; j < batch && i < n; j, i = j+1, i+1 {
				if _, err := js.PublishAsync(subject, data); err != nil {
					return 0, err
				}
			}
			<-js.PublishAsyncComplete()
		}
		return done(), nil
	case "pub-batch":
		m := nats.NewMsg(subject)
		m.Data = data
		start = time.Now()
		for i := 0; i < n; {
			id := nuid.Next()
			k := min(batch, n-i)
			for j := 1; j <= k; j++ {
				m.Header.Set("Nats-Batch-Id", id)
				m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(j))
				m.Header.Del("Nats-Batch-Commit")
				if j == k {
					m.Header.Set("Nats-Batch-Commit", "1")
					r, err := nc.RequestMsg(m, 5*time.Second)
					if err != nil {
						return 0, err
					}
					var ack struct {
						Error *jetstream.APIError `json:"error"`
					}
					if json.Unmarshal(r.Data, &ack) == nil && ack.Error != nil {
						return 0, ack.Error
					}
				} else if err := nc.PublishMsg(m); err != nil {
					return 0, err
				}
			}
			i += k
		}
		return done(), nil
	case "ordered", "consume":
		var cons jetstream.Consumer
		if op == "ordered" {
			cons, err = js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
		} else {
			cons, err = durable(ctx, js, stream)
		}
		if err != nil {
			return 0, err
		}
		got := make(chan struct{})
		count := 0
		start = time.Now()
		cc, err := cons.Consume(func(m jetstream.Msg) {
			if op == "consume" {
				_ = m.Ack()
			}
			if count++; count == n {
				close(got)
			}
		}, jetstream.PullMaxMessages(batch))
		if err != nil {
			return 0, err
		}
		<-got
		r := done()
		cc.Stop()
		return r, nil
	case "fetch":
		cons, err := durable(ctx, js, stream)
		if err != nil {
			return 0, err
		}
		start = time.Now()
		for count := 0; count < n; {
			b, err := cons.Fetch(min(batch, n-count), jetstream.FetchMaxWait(time.Second))
			if err != nil {
				return 0, err
			}
			for m := range b.Messages() {
				_ = m.Ack()
				count++
			}
		}
		return done(), nil
	case "get-sync":
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return 0, err
		}
		first := s.CachedInfo().State.FirstSeq
		start = time.Now()
		for i := 0; i < n; i++ {
			if _, err := s.GetMsg(ctx, first+uint64(i)); err != nil {
				return 0, err
			}
		}
		return done(), nil
	case "get-batch":
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return 0, err
		}
		seq := s.CachedInfo().State.FirstSeq
		inbox := nc.NewInbox()
		sub, err := nc.SubscribeSync(inbox)
		if err != nil {
			return 0, err
		}
		start = time.Now()
		for count := 0; count < n; {
			req, _ := json.Marshal(map[string]any{"seq": seq, "batch": min(batch, n-count)})
			if err := nc.PublishRequest("$JS.API.DIRECT.GET."+stream, inbox, req); err != nil {
				return 0, err
			}
			for {
				m, err := sub.NextMsg(5 * time.Second)
				if err != nil {
					return 0, err
				}
				if len(m.Data) == 0 && m.Header.Get("Status") != "" {
					break
				}
				count++
				seq++
			}
		}
		return done(), nil
	case "kv-put", "kv-get":
		kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "barebucket"})
		if err != nil {
			return 0, err
		}
		keys := make([]string, n)
		for i := range keys {
			keys[i] = strconv.Itoa(i)
		}
		if op == "kv-get" {
			for _, k := range keys {
				if _, err := kv.Put(ctx, k, data); err != nil {
					return 0, err
				}
			}
		}
		start = time.Now()
		for _, k := range keys {
			if op == "kv-put" {
				_, err = kv.Put(ctx, k, data)
			} else {
				_, err = kv.Get(ctx, k)
			}
			if err != nil {
				return 0, err
			}
		}
		return done(), nil
	}
	return 0, fmt.Errorf("unknown -op %q", op)
}

// durable creates a fresh durable pull consumer "bare".
func durable(ctx context.Context, js jetstream.JetStream, stream string) (jetstream.Consumer, error) {
	_ = js.DeleteConsumer(ctx, stream, "bare")
	return js.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "bare", AckPolicy: jetstream.AckExplicitPolicy})
}
