// Package deploy holds what runs natsperf outside a single process: the Helm chart under
// helm/natsperf and the tests that render it with helm's Go library and decode every object
// into the Kubernetes API types. It is its own Go module so that helm and k8s.io/api stay out of
// natsperf's dependencies; `go test ./...` here runs those tests (.ci/run does).
package deploy
