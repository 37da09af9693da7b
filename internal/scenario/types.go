// Package scenario reads natsperf scenario files: a target, setup (streams, KV buckets), groups
// of workloads that run at the same time, repetitions, and matrix axes whose product is run.
// Every value may use ${var}, ${axis} or ${axis.field}; workloads and streams with instances
// also ${instance}. Validation reports file:line:col and the field of each mistake.
package scenario

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// File is one scenario, for one cell of the matrix (all ${...} but ${instance} substituted).
type File struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Target      Target     `yaml:"target"`
	Setup       Setup      `yaml:"setup"`
	Workloads   []Workload `yaml:"workloads"`
	// Repetitions of every cell (default 1); Cooldown is the pause between runs.
	Repetitions int      `yaml:"repetitions"`
	Cooldown    Duration `yaml:"cooldown"`
	// Stream writes interval records to DIR/<run>.series.jsonl as they close, instead of keeping
	// them in memory (long runs); "auto" (default) streams runs with --duration of 5m or more.
	Stream string `yaml:"stream"`
	// SLO are thresholds every cell's run must hold (--slo); a workload's own --slo joins them.
	// The report marks the cells that pass.
	SLO []string `yaml:"slo"`
	// Capacity, when set, searches each cell's capacity (natsperf capacity) instead of running
	// it once: the highest rate at which every slo holds. Its capacity goes into the index and
	// the report's effects compare it between cells.
	Capacity *Capacity `yaml:"capacity"`

	// Vars and Matrix are read before substitution; kept here so the schema and key checks
	// know them.
	Vars   map[string]string `yaml:"vars"`
	Matrix yaml.Node         `yaml:"matrix"`
}

// Capacity bounds a cell's capacity search, as natsperf capacity's flags do (0: their default).
type Capacity struct {
	Min           float64  `yaml:"min"`
	Max           float64  `yaml:"max"`
	ProbeDuration Duration `yaml:"probe-duration"`
	Warmup        Duration `yaml:"warmup"`
	Repeats       int      `yaml:"repeats"`
	Precision     float64  `yaml:"precision"`
	Drain         Duration `yaml:"drain"`
}

// Target is where the clients connect: an embedded server or cluster, or servers.
type Target struct {
	Embedded *Embedded `yaml:"embedded"`
	Servers  string    `yaml:"servers"` // comma-separated URLs
	Context  string    `yaml:"context"` // a nats CLI context
	User     string    `yaml:"user"`
	Password string    `yaml:"password"`
	Token    string    `yaml:"token"`
	Creds    string    `yaml:"creds"`
	NKey     string    `yaml:"nkey"`
	TLSCert  string    `yaml:"tlscert"`
	TLSKey   string    `yaml:"tlskey"`
	TLSCA    string    `yaml:"tlsca"`
	// TLSFirst and TLSInsecure are --tlsfirst and --tls-insecure.
	TLSFirst    bool `yaml:"tlsfirst"`
	TLSInsecure bool `yaml:"tls-insecure"`
	// JWT and Seed are files (--jwt, --seed); the rest as their flags: a JetStream domain or
	// API prefix (a leaf node, an imported JetStream), the inbox prefix, a SOCKS5 proxy.
	JWT            string `yaml:"jwt"`
	Seed           string `yaml:"seed"`
	ConnectionName string `yaml:"connection-name"`
	SocksProxy     string `yaml:"socks-proxy"`
	JSDomain       string `yaml:"js-domain"`
	JSAPIPrefix    string `yaml:"js-api-prefix"`
	JSEventPrefix  string `yaml:"js-event-prefix"`
	InboxPrefix    string `yaml:"inbox-prefix"`
	// Monitor are the servers' monitoring endpoints, comma-separated (--server-metrics).
	Monitor string `yaml:"monitor"`
}

// Embedded is natsperf's own server: Nodes 1 is a single server, more a JetStream cluster.
type Embedded struct {
	Nodes int `yaml:"nodes"`
	// Encryption is none, aes or chacha: the JetStream store encrypted at rest.
	Encryption string `yaml:"encryption"`
}

// Setup is created before each cell and removed after it (what natsperf created only).
type Setup struct {
	Streams []Stream `yaml:"streams"`
	Buckets []Bucket `yaml:"buckets"`
}

// Stream is a stream to create; with Instances, one per instance (${instance} = 1..N).
type Stream struct {
	Name     string   `yaml:"name"`
	Subjects []string `yaml:"subjects"`
	Storage  string   `yaml:"storage"`
	Replicas int      `yaml:"replicas"`
	MaxBytes string   `yaml:"maxbytes"`
	// Compression is s2 or none.
	Compression string `yaml:"compression"`
	Instances   int    `yaml:"instances"`
}

// Bucket is a KV bucket to create.
type Bucket struct {
	Name     string `yaml:"name"`
	Storage  string `yaml:"storage"`
	Replicas int    `yaml:"replicas"`
	History  int    `yaml:"history"`
	// Compression is s2 or none.
	Compression string `yaml:"compression"`
}

// Workload is any natsperf benchmark command with its flags, run as Instances copies at once.
type Workload struct {
	Name      string `yaml:"name"`
	Instances int    `yaml:"instances"`
	Command   string `yaml:"command"` // "pubsub foo --js --pub 2"
	Flags     Flags  `yaml:"flags"`   // appended as --name=value

	line int
}

// Flag is one --name=value; true gives --name, false --name=false.
type Flag struct {
	Name, Value string
	Line        int
}

// Flags keep the file's order.
type Flags []Flag

// UnmarshalYAML reads a mapping of flag names to scalar values.
func (f *Flags) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("must be a mapping of flag names to values")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("flag %s: value must be a scalar", k.Value)
		}
		*f = append(*f, Flag{Name: k.Value, Value: v.Value, Line: k.Line})
	}
	return nil
}

// Duration is a Go duration string ("90s", "2m").
type Duration time.Duration

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("must be a duration such as 2s or 5m")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as 2s or 5m", n.Value)
	}
	*d = Duration(v)
	return nil
}
