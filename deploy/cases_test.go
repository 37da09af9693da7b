package deploy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	corev1 "k8s.io/api/core/v1"
)

const nonRootUID = 65532 // distroless's nonroot user, the Dockerfile's USER

// TestChartRenders renders the chart for 1, 3 and 30 agents with the coordinator and the
// credentials Secret on and off, and checks what a deployment depends on, then the golden file.
func TestChartRenders(t *testing.T) {
	cases := []struct {
		name   string
		values string
		check  func(t *testing.T, r *rendered)
	}{
		{
			name:   "agents1-defaults",
			values: "agents: {replicas: 1}\n",
			check: func(t *testing.T, r *rendered) {
				checkAgents(t, r, 1, "nats://nats:4222", nil)
				if r.job != nil || r.configMap != nil {
					t.Error("coordinator rendered while coordinator.enabled=false")
				}
				if r.secret != nil || strings.Contains(r.manifest, "/etc/natsperf/auth") || strings.Contains(r.manifest, "NATS_") {
					t.Error("credentials rendered while auth.type=none")
				}
				if r.claim == nil {
					t.Error("no results claim although results.persistence.enabled defaults to true")
				}
				if !strings.Contains(r.notes, "--agents 1 --control nats://nats:4222") {
					t.Errorf("NOTES.txt does not say how to run a coordinator by hand:\n%s", r.notes)
				}
			},
		},
		{
			name: "agents3-coordinator-creds",
			values: `
server: {url: "nats://nats.perf.svc:4222"}
control: {url: "nats://control.perf.svc:4222"}
auth: {type: creds, creds: "-----BEGIN NATS USER JWT-----\nsecret-jwt\n"}
agents:
  replicas: 3
  labels: {zone: a, disk: ssd}
coordinator:
  enabled: true
  set: {msgs: 1000000, rate: 0.4, size: 1kb}
  scenario: |
    name: tiny
    vars: {pods: 1, msgs: 100, rate: 1, size: 16}
    workloads:
      - command: pub foo
        instances: ${pods}
        flags:
          msgs: ${msgs}
`,
			check: func(t *testing.T, r *rendered) {
				labels := []string{"disk=ssd", "zone=a"}
				checkAgents(t, r, 3, "nats://nats.perf.svc:4222", labels)
				checkControl(t, container(t, r.deployment.Spec.Template.Spec).Args, "nats://control.perf.svc:4222")
				pod := r.deployment.Spec.Template
				if pod.Labels["agent.natsperf.io/zone"] != "a" || pod.Labels["agent.natsperf.io/disk"] != "ssd" {
					t.Errorf("agent labels not on the pod: %v", pod.Labels)
				}
				checkCreds(t, r, "bench-natsperf-auth", pod.Spec)
				job := checkCoordinator(t, r, "3", "bench-natsperf-results")
				checkCreds(t, r, "bench-natsperf-auth", job)
				args := container(t, job).Args
				if got := pairs(args, "--set"); !slices.Equal(got, []string{"pods=3", "msgs=1000000", "rate=0.4", "size=1kb"}) {
					t.Errorf("--set %q, want pods=3 (one instance per agent) then the values' msgs, rate and size as written", got)
				}
				if !strings.Contains(r.configMap.Data["scenario.yaml"], "command: pub foo") {
					t.Errorf("ConfigMap scenario.yaml = %q", r.configMap.Data["scenario.yaml"])
				}
				if slices.Contains(args, "--metrics-addr") {
					t.Error("--metrics-addr without coordinator.metrics.enabled")
				}
				if strings.Contains(r.manifest, "secret-jwt") || strings.Contains(r.notes, "secret-jwt") {
					t.Error("the credentials appear in clear in the rendered output")
				}
			},
		},
		{
			name: "agents30-existing-secret-and-claim",
			values: `
auth: {type: userPassword, existingSecret: nats-bench-user}
agents:
  replicas: 30
  antiAffinity: hard
coordinator:
  enabled: true
  agents: "zone=b"
  onAgentLoss: continue
  metrics: {enabled: true, port: 9200}
  instancesVar: ""
  ttlSecondsAfterFinished: 3600
results:
  persistence: {existingClaim: perf-results}
  reader: {enabled: true}
`,
			check: func(t *testing.T, r *rendered) {
				if r.deployment.Spec.Replicas == nil || *r.deployment.Spec.Replicas != 30 {
					t.Fatalf("replicas %v, want 30", r.deployment.Spec.Replicas)
				}
				aff := r.deployment.Spec.Template.Spec.Affinity
				if aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
					aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
					t.Errorf("antiAffinity=hard: want one required term on kubernetes.io/hostname, got %+v", aff)
				}
				if r.secret != nil {
					t.Error("the chart made a Secret although auth.existingSecret names one")
				}
				if r.claim != nil {
					t.Error("the chart made a claim although results.persistence.existingClaim names one")
				}
				for _, spec := range []corev1.PodSpec{r.deployment.Spec.Template.Spec, r.job.Spec.Template.Spec} {
					c := container(t, spec)
					// The credentials reach natsperf in its environment only: an argument,
					// even one Kubernetes expands from it, shows in the process list.
					for _, a := range c.Args {
						if strings.Contains(a, "NATS_") || strings.HasPrefix(a, "--user") || strings.HasPrefix(a, "--password") || strings.HasPrefix(a, "--token") {
							t.Errorf("args %q: credentials in an argument (%q)", c.Args, a)
						}
					}
					refs := map[string]string{}
					for _, e := range c.Env {
						if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
							if e.ValueFrom.SecretKeyRef.Name != "nats-bench-user" {
								t.Errorf("env %s from Secret %q, want nats-bench-user", e.Name, e.ValueFrom.SecretKeyRef.Name)
							}
							refs[e.Name] = e.ValueFrom.SecretKeyRef.Key
						}
					}
					if refs["NATS_USER"] != "user" || refs["NATS_PASSWORD"] != "password" {
						t.Errorf("env from the Secret: %v", refs)
					}
				}
				job := checkCoordinator(t, r, "zone=b", "perf-results")
				args := container(t, job).Args
				if argAfter(t, args, "--on-agent-loss") != "continue" || len(pairs(args, "--set")) != 0 {
					t.Errorf("coordinator args %q", args)
				}
				c := container(t, job)
				if argAfter(t, c.Args, "--metrics-addr") != "0.0.0.0:9200" || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9200 ||
					r.job.Spec.Template.Annotations["prometheus.io/port"] != "9200" {
					t.Errorf("metrics: args %q ports %+v annotations %v", c.Args, c.Ports, r.job.Spec.Template.Annotations)
				}
				if r.job.Spec.TTLSecondsAfterFinished == nil || *r.job.Spec.TTLSecondsAfterFinished != 3600 {
					t.Errorf("ttlSecondsAfterFinished %v", r.job.Spec.TTLSecondsAfterFinished)
				}
				if r.reader == nil {
					t.Fatal("no results reader pod")
				}
				v := r.reader.Spec.Volumes
				if len(v) != 1 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != "perf-results" || !v[0].PersistentVolumeClaim.ReadOnly {
					t.Errorf("reader volumes %+v: want perf-results read-only", v)
				}
				if strings.Contains(r.notes, "delete pvc") {
					t.Errorf("NOTES.txt suggests deleting the user's own claim:\n%s", r.notes)
				}
				if !strings.Contains(r.notes, "kubectl -n perf cp bench-natsperf-results:/results ./results") {
					t.Errorf("NOTES.txt does not say how to copy the results out:\n%s", r.notes)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := render(t, tc.values)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			tc.check(t, r)
			checkHardened(t, r)
			golden(t, tc.name, r)
		})
	}
}

// checkAgents: replicas, `natsperf agent` with its server, control URL, name and labels, and the
// preferred spread over nodes whose selector matches the agents' own pods.
func checkAgents(t *testing.T, r *rendered, replicas int32, server string, labels []string) {
	t.Helper()
	d := r.deployment
	if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
		t.Fatalf("replicas %v, want %d", d.Spec.Replicas, replicas)
	}
	c := container(t, d.Spec.Template.Spec)
	if len(c.Args) == 0 || c.Args[0] != "agent" {
		t.Fatalf("args %q: want the agent command first", c.Args)
	}
	if got := argAfter(t, c.Args, "-s"); got != server {
		t.Errorf("-s %q, want %q", got, server)
	}
	if argAfter(t, c.Args, "--name") != "$(POD_NAME)" || !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "POD_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name"
	}) {
		t.Errorf("agents are not named after their pod: args %q env %+v", c.Args, c.Env)
	}
	if got := pairs(c.Args, "--label"); !slices.Equal(got, labels) {
		t.Errorf("--label %q, want %q", got, labels)
	}
	if slices.Contains(c.Args, "--allow-exec") {
		t.Error("--allow-exec without agents.allowExec")
	}
	sel := d.Spec.Selector.MatchLabels
	for k, v := range sel {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
		}
	}
	aff := d.Spec.Template.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("no preferred pod anti-affinity: %+v", aff)
	}
	term := aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	if term.TopologyKey != "kubernetes.io/hostname" || term.LabelSelector == nil || fmt.Sprint(term.LabelSelector.MatchLabels) != fmt.Sprint(sel) {
		t.Errorf("anti-affinity term %+v: want topologyKey kubernetes.io/hostname over the agents' selector %v", term, sel)
	}
}

func checkControl(t *testing.T, args []string, want string) {
	t.Helper()
	if got := argAfter(t, args, "--control"); got != want {
		t.Errorf("--control %q, want %q", got, want)
	}
}

// checkCreds: the Secret's creds key mounted read-only and passed as --creds.
func checkCreds(t *testing.T, r *rendered, secret string, spec corev1.PodSpec) {
	t.Helper()
	if r.secret == nil || r.secret.Name != secret || len(r.secret.Data["creds"]) == 0 {
		t.Fatalf("want Secret %s with key creds, got %+v", secret, r.secret)
	}
	c := container(t, spec)
	if argAfter(t, c.Args, "--creds") != "/etc/natsperf/auth/creds" {
		t.Errorf("args %q: --creds is not the mounted file", c.Args)
	}
	var vol *corev1.Volume
	for i := range spec.Volumes {
		if spec.Volumes[i].Secret != nil {
			vol = &spec.Volumes[i]
		}
	}
	if vol == nil || vol.Secret.SecretName != secret {
		t.Fatalf("no volume from Secret %s: %+v", secret, spec.Volumes)
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == vol.Name && m.MountPath == "/etc/natsperf/auth" && m.ReadOnly
	}) {
		t.Errorf("Secret volume not mounted read-only at /etc/natsperf/auth: %+v", c.VolumeMounts)
	}
}

// checkCoordinator: a Job that runs the ConfigMap's scenario across the agents and writes its
// results to the claim. It returns the Job's pod spec.
func checkCoordinator(t *testing.T, r *rendered, agents, claim string) corev1.PodSpec {
	t.Helper()
	if r.job == nil || r.configMap == nil {
		t.Fatal("coordinator enabled but no Job or ConfigMap")
	}
	spec := r.job.Spec.Template.Spec
	c := container(t, spec)
	if len(c.Args) < 2 || c.Args[0] != "run" || c.Args[1] != "/scenario/scenario.yaml" {
		t.Fatalf("coordinator args %q: want run /scenario/scenario.yaml", c.Args)
	}
	if got := argAfter(t, c.Args, "--agents"); got != agents {
		t.Errorf("--agents %q, want %q", got, agents)
	}
	if argAfter(t, c.Args, "-o") != "/results/bench-r1" {
		t.Errorf("-o %q, want /results/bench-r1", argAfter(t, c.Args, "-o"))
	}
	argAfter(t, c.Args, "--control")
	if spec.RestartPolicy != corev1.RestartPolicyNever || r.job.Spec.BackoffLimit == nil || *r.job.Spec.BackoffLimit != 0 {
		t.Errorf("a benchmark must not be retried silently: restartPolicy %s backoffLimit %v", spec.RestartPolicy, r.job.Spec.BackoffLimit)
	}
	if _, ok := r.configMap.Data["scenario.yaml"]; !ok {
		t.Errorf("ConfigMap has no scenario.yaml: %v", r.configMap.Data)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			if v.ConfigMap.Name != r.configMap.Name || mounts[v.Name] != "/scenario" {
				t.Errorf("scenario volume %+v mounted at %q", v, mounts[v.Name])
			}
		case v.PersistentVolumeClaim != nil:
			if v.PersistentVolumeClaim.ClaimName != claim || mounts[v.Name] != "/results" {
				t.Errorf("results volume %+v mounted at %q, want claim %s at /results", v, mounts[v.Name], claim)
			}
			if r.claim != nil && r.claim.Name != claim {
				t.Errorf("the Job mounts %s but the chart made claim %s", claim, r.claim.Name)
			}
		}
	}
	if mounts["results"] != "/results" || mounts["scenario"] != "/scenario" {
		t.Errorf("mounts %v", mounts)
	}
	return spec
}

// checkHardened: every pod runs as the non-root UID with a read-only root filesystem, no
// privilege escalation, no capabilities and no service-account token.
func checkHardened(t *testing.T, r *rendered) {
	t.Helper()
	specs := map[string]corev1.PodSpec{"agents": r.deployment.Spec.Template.Spec}
	if r.job != nil {
		specs["coordinator"] = r.job.Spec.Template.Spec
	}
	if r.reader != nil {
		specs["reader"] = r.reader.Spec
	}
	for name, spec := range specs {
		psc := spec.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != nonRootUID {
			t.Errorf("%s: pod securityContext %+v: want runAsNonRoot with UID %d", name, psc, nonRootUID)
		}
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			t.Errorf("%s: mounts a service-account token it has no use for", name)
		}
		sc := container(t, spec).SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s: container securityContext %+v", name, sc)
		}
	}
}

// TestChartRefusesBadValues: values.schema.json and the templates' `required` turn mistakes
// into errors at `helm install` time instead of pods that crash-loop.
func TestChartRefusesBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"replicas not a number", "agents: {replicas: three}\n", "replicas"},
		{"misspelt key", "agents: {replica: 3}\n", "replica"},
		{"unknown auth type", "auth: {type: kerberos}\n", "type"},
		{"server not a NATS URL", "server: {url: \"http://nats:4222\"}\n", "url"},
		{"creds without a file", "auth: {type: creds}\n", "auth.type=creds needs auth.creds"},
		{"password missing", "auth: {type: userPassword, user: bench}\n", "needs auth.password"},
		{"bad agent-loss policy", "coordinator: {enabled: true, onAgentLoss: retry}\n", "onAgentLoss"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(t, tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("render error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestChartLints runs helm's own linter (`helm lint`) over the chart with its default values.
func TestChartLints(t *testing.T) {
	l := lint.All(chartDir, nil, namespace, false)
	if len(l.Messages) == 0 {
		t.Fatal("the linter said nothing at all (not even its INFO notes): did it run?")
	}
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint: %s", m)
		}
	}
}
