package spec

import (
	"strings"
	"testing"
	"time"
)

func TestValidateGateways(t *testing.T) {
	ms := Duration(5 * time.Millisecond)
	for _, tc := range []struct {
		name string
		e    Embedded
		want string
	}{
		{"supercluster", Embedded{Nodes: 3, Gateways: 2, GatewayDelay: ms, LinkDelay: ms}, ""},
		{"one cluster", Embedded{Gateways: 1}, "2 to 9"},
		{"delay alone", Embedded{GatewayDelay: ms}, "needs gateways"},
		{"leaf nodes", Embedded{Gateways: 2, Leafnodes: 1}, "leaf nodes"},
		{"zones", Embedded{Nodes: 3, Gateways: 2, Zones: 3}, "gateway_delay"},
		{"too many", Embedded{Nodes: 9, Gateways: 9}, "27"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Spec{Version: Version, Workloads: []Workload{{Config: &Pub{Subject: "foo"}}}}
			s.Target.Embedded = &tc.e
			err := s.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
	if !(&Embedded{Gateways: 2, GatewayDelay: ms}).Links() {
		t.Fatal("a gateway delay asks for no links")
	}
}
