package procs

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// config renders node n's nats-server config file. Keys natsperf sets itself come first;
// Options.Config and Options.JetStream add to them (a later key wins in nats-server's parser).
func (c *Cluster) config(n *node) string {
	var b strings.Builder
	kv := func(indent, k string, v any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(&b, "%s%s: %s\n", indent, k, j)
	}
	kv("", "server_name", n.Name)
	kv("", "listen", hostPort(n.host, n.clientPort))
	kv("", "http", hostPort(n.host, n.httpPort))
	for _, k := range sortedKeys(c.opts.Config) {
		kv("", k, c.opts.Config[k])
	}
	b.WriteString("jetstream {\n")
	kv("  ", "store_dir", n.StoreDir)
	kv("  ", "max_memory_store", c.opts.JetStreamMaxMemory)
	kv("  ", "max_file_store", c.opts.JetStreamMaxStore)
	for _, k := range sortedKeys(c.opts.JetStream) {
		kv("  ", k, c.opts.JetStream[k])
	}
	b.WriteString("}\n")
	if len(c.nodes) > 1 {
		b.WriteString("cluster {\n")
		kv("  ", "name", ClusterName)
		kv("  ", "listen", hostPort(defaultHost, n.clusterPort))
		var routes []string
		for _, o := range c.nodes {
			if o != n {
				routes = append(routes, "nats-route://"+hostPort(defaultHost, o.clusterPort))
			}
		}
		kv("  ", "routes", routes)
		b.WriteString("}\n")
	}
	return b.String()
}

// options is what natsperf set in a node's config beyond ports and names, for the Result.
func (c *Cluster) options() map[string]any {
	o := map[string]any{
		"jetstream.max_memory_store": c.opts.JetStreamMaxMemory,
		"jetstream.max_file_store":   c.opts.JetStreamMaxStore,
	}
	for k, v := range c.opts.Config {
		o[k] = v
	}
	for k, v := range c.opts.JetStream {
		o["jetstream."+k] = v
	}
	return o
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
