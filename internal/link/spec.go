package link

import "github.com/natsperf/natsperf/spec"

// FromSpec is the links an embedded target asks for, nil when its nodes and clients connect
// directly.
func FromSpec(e *spec.Embedded) *Network {
	if !e.Links() {
		return nil
	}
	return &Network{
		Route:     Conditions{Delay: e.LinkDelay.D(), Jitter: e.LinkJitter.D(), Bandwidth: int64(e.LinkBandwidth)},
		Zones:     e.Zones,
		ZoneDelay: Conditions{Delay: e.ZoneDelay.D()},
		Client:    Conditions{Delay: e.ClientDelay.D(), Jitter: e.ClientJitter.D()},
		Gateway:   Conditions{Delay: e.GatewayDelay.D()},
	}
}
