//go:build e2e

package e2e_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// metricLine matches one series of Prometheus's text format: its name, its labels if it has any,
// and its value.
var metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)

// scrape reads base's /metrics and sums its series by the key that key makes of each one's name
// and labels; a series whose key is "" is left out. A label's value holding a comma is not
// parsed: no metric the tests read has one.
func scrape(t *testing.T, base string, key func(name string, labels map[string]string) string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("scrape %s: %v", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", base, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		m := metricLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		labels := map[string]string{}
		if m[2] != "" {
			for _, kv := range strings.Split(m[2], ",") {
				k, v, _ := strings.Cut(kv, "=")
				labels[k] = strings.Trim(v, `"`)
			}
		}
		k := key(m[1], labels)
		if k == "" {
			continue
		}
		n, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("the metrics of %s: %q: %v", base, line, err)
		}
		out[k] += n
	}
	return out
}

// metricsURL is where the operator serves its metrics: the port its environment names last, as
// the process reads it.
func (op *operator) metricsURL() string {
	port := ""
	for _, e := range op.cmd.Env {
		if v, ok := strings.CutPrefix(e, "METRICS_PORT="); ok {
			port = v
		}
	}
	return "http://127.0.0.1:" + port
}
