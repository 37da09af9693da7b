package deploy

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const (
	chartDir    = "helm/natsperf"
	releaseName = "bench"
	namespace   = "perf"
	fullname    = "bench-natsperf"
)

// rendered is one release rendered client-side, every object decoded into its API type.
type rendered struct {
	manifest, notes string
	deployment      *appsv1.Deployment
	job             *batchv1.Job
	configMap       *corev1.ConfigMap
	secret          *corev1.Secret
	claim           *corev1.PersistentVolumeClaim
	reader          *corev1.Pod
}

// render is `helm template` through helm's library: an install dry-run, client only, with
// values given as a values file would give them. It fails on any object that does not decode
// strictly (unknown or duplicate fields) into a kind the chart is meant to make.
func render(t *testing.T, valuesYAML string) (*rendered, error) {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	vals, err := chartutil.ReadValues([]byte(valuesYAML))
	if err != nil {
		t.Fatalf("values: %v", err)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRun = true
	install.ClientOnly = true
	install.Replace = true
	install.ReleaseName = releaseName
	install.Namespace = namespace
	rel, err := install.RunWithContext(context.Background(), chrt, vals.AsMap())
	if err != nil {
		return nil, err
	}
	out := &rendered{manifest: rel.Manifest, notes: rel.Info.Notes}
	decoder := strictDecoder(t)
	manifests := releaseutil.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	for _, k := range keys {
		obj, _, err := decoder.Decode([]byte(manifests[k]), nil, nil)
		if err != nil {
			t.Fatalf("object %s does not decode strictly: %v\n%s", k, err, manifests[k])
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			setOnce(t, &out.deployment, o)
		case *batchv1.Job:
			setOnce(t, &out.job, o)
		case *corev1.ConfigMap:
			setOnce(t, &out.configMap, o)
		case *corev1.Secret:
			setOnce(t, &out.secret, o)
		case *corev1.PersistentVolumeClaim:
			setOnce(t, &out.claim, o)
		case *corev1.Pod:
			setOnce(t, &out.reader, o)
		default:
			t.Fatalf("unexpected kind %T in %s", obj, k)
		}
		if ns := obj.(interface{ GetNamespace() string }).GetNamespace(); ns != "" && ns != namespace {
			t.Errorf("%s: namespace %q", k, ns)
		}
	}
	if out.deployment == nil {
		t.Fatal("no agent Deployment rendered")
	}
	return out, nil
}

func setOnce[T any](t *testing.T, dst **T, v *T) {
	t.Helper()
	if *dst != nil {
		t.Fatalf("two objects of kind %T", v)
	}
	*dst = v
}

// strictDecoder decodes YAML into core, apps and batch types, refusing unknown and duplicate
// fields (a misspelt or misplaced key in a template would otherwise vanish silently).
func strictDecoder(t *testing.T) runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}

// golden compares the rendered release (objects, then NOTES) with testdata/NAME.golden.
func golden(t *testing.T, name string, r *rendered) {
	t.Helper()
	got := []byte(r.manifest + "\n# NOTES.txt\n" + r.notes + "\n")
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rendered %s differs from %s (go test -update rewrites it):\n%s", name, path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, wl, gl)
		}
	}
	return ""
}

func container(t *testing.T, spec corev1.PodSpec) corev1.Container {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	return spec.Containers[0]
}

// argAfter returns the argument that follows flag, failing when the flag is missing.
func argAfter(t *testing.T, args []string, flag string) string {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("args %q: no %s VALUE", args, flag)
	}
	return args[i+1]
}

// pairs returns every value that follows flag (flags that repeat, as --label and --set).
func pairs(args []string, flag string) []string {
	var out []string
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	return out
}
