package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// IndexSchema names the run directory's index format. v2 wrote the axes' keys in snake_case
// ("name", "values"); ReadIndex still accepts v1 ("Name", "Values"), which decodes the same.
const (
	IndexSchema   = "natsperf.run-index/v2"
	IndexSchemaV1 = "natsperf.run-index/v1"
)

// IndexFile is the index's name in a run directory.
const IndexFile = "index.json"

// Index lists a scenario run's cells and the Result file of each repetition.
type Index struct {
	Schema   string `json:"schema"`
	Scenario string `json:"scenario"` // its name
	File     string `json:"file"`     // the scenario file as given
	// Description and Vars (the variables after --set, matrix axes left out) are what the
	// report's header says about the run.
	Description string            `json:"description,omitempty"`
	Vars        map[string]string `json:"vars,omitempty"`
	Set         map[string]string `json:"set,omitempty"`
	Axes        []Axis            `json:"axes,omitempty"`
	Cells       []IndexCell       `json:"cells"`
	Started     time.Time         `json:"started"`
	Updated     time.Time         `json:"updated"`
}

// IndexCell is one cell and its runs.
type IndexCell struct {
	Index  int               `json:"index"`
	Name   string            `json:"name"`
	Values map[string]string `json:"values,omitempty"`
	Runs   []IndexRun        `json:"runs"`
}

// IndexRun is one repetition.
type IndexRun struct {
	Repetition int    `json:"repetition"`
	Result     string `json:"result"`           // file name in the directory
	Series     string `json:"series,omitempty"` // streamed interval records, when streamed
	Stop       string `json:"stop"`
	Error      string `json:"error,omitempty"`
	Lost       int64  `json:"lost,omitempty"` // the Result's data loss (result.Result.Loss)
	// NotRecovered: the run had not recovered by its end (result.Result.NotRecovered).
	NotRecovered bool      `json:"not_recovered,omitempty"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	// Capacity names the cell's capacity search (natsperf.capacity/v1), when the scenario
	// searched it (capacity:); Result is then the Result of the probe at the capacity.
	Capacity string `json:"capacity,omitempty"`
}

// Done reports whether the run finished (completed, idle or failed: it has a Result).
func (r IndexRun) Done() bool { return r.Stop != "" && r.Stop != "interrupted" }

// ReadIndex reads DIR/index.json.
func ReadIndex(dir string) (*Index, error) {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, err
	}
	var ix Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IndexFile), err)
	}
	if ix.Schema != IndexSchema && ix.Schema != IndexSchemaV1 {
		return nil, fmt.Errorf("%s: schema %q is not %s", filepath.Join(dir, IndexFile), ix.Schema, IndexSchema)
	}
	return &ix, nil
}

// WriteIndex writes DIR/index.json atomically.
func WriteIndex(dir string, ix *Index) error {
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, IndexFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, IndexFile)); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// maxRunName bounds the values part of a run's file name, leaving room for the index,
// repetition and the longest suffix (".series.jsonl").
const maxRunName = 160

// RunName is the file stem of a cell's repetition: "003-storage-file_replicas-3-r2".
func RunName(c Cell, rep int) string {
	var parts []string
	for _, v := range c.Values {
		parts = append(parts, unsafe.ReplaceAllString(v.Axis+"-"+v.Value, "-"))
	}
	name := strings.Join(parts, "_")
	if name == "" {
		name = "default"
	}
	// File systems take 255 bytes per name; the index prefix keeps a shortened name unique,
	// and index.json still holds the cell's full values.
	if len(name) > maxRunName {
		name = name[:maxRunName]
	}
	return fmt.Sprintf("%03d-%s-r%d", c.Index+1, name, rep)
}
