package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// The API's benchmarks: one replica serving the API only (no workers, so no engine runs), on a
// throwaway PostgreSQL on the same machine, called over loopback. Each benchmark sets up in its
// parent and measures in sub-benchmarks, so the database is made and seeded once, not once per
// b.N the framework tries.

// benchAPI is a replica for a benchmark: its URL, a token of every role, and one HTTP client
// that keeps enough idle connections for every concurrent request, so that connection setup does
// not dominate what is measured.
type benchAPI struct {
	url string
	// databasePort is the PostgreSQL server's port (0 on SQLite), whose CPU the load counts.
	databasePort int
	tokens       map[auth.Role]string
	client       *http.Client
}

// onEachBenchDatabase runs f as a sub-benchmark on each database (as onEachDatabase), against
// an API-only replica on a fresh one, stopped when the sub-benchmark ends: the figures of the
// SQLite file and of PostgreSQL come side by side from one run.
func onEachBenchDatabase(b *testing.B, f func(b *testing.B, a *benchAPI)) {
	for _, db := range databases {
		b.Run(db.name, func(b *testing.B) { f(b, startBench(b, db.url(b))) })
	}
}

// startBench starts an API-only replica on the database db for a benchmark.
func startBench(b *testing.B, db string) *benchAPI {
	b.Helper()
	url, _, tokens := launch(b, db, 0)
	transport := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	b.Cleanup(transport.CloseIdleConnections)
	a := &benchAPI{url: url, tokens: tokens, client: &http.Client{Transport: transport, Timeout: time.Minute}}
	if u, err := neturl.Parse(db); err == nil && u.Scheme == "postgres" {
		a.databasePort, _ = strconv.Atoi(u.Port())
	}
	return a
}

// do sends one request as role and returns its status and body. It is safe from any goroutine:
// it returns errors rather than failing the benchmark.
func (a *benchAPI) do(role auth.Role, method, path, body string, headers ...string) (int, []byte, error) {
	code, _, data, err := a.answer(role, method, path, body, headers...)
	return code, data, err
}

// answer is do with the response's headers too.
func (a *benchAPI) answer(role auth.Role, method, path, body string, headers ...string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.tokens[role])
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data, err
}

// must is do from the benchmark's goroutine, failing it on an error or another status than want,
// and decoding the body.
func (a *benchAPI) must(b *testing.B, want int, role auth.Role, method, path, body string, headers ...string) map[string]any {
	b.Helper()
	code, data, err := a.do(role, method, path, body, headers...)
	if err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
	if code != want {
		b.Fatalf("%s %s: got %d, want %d: %s", method, path, code, want, data)
	}
	var out map[string]any
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			b.Fatalf("%s %s: not JSON: %s", method, path, data)
		}
	}
	return out
}

func benchCluster(name string) string {
	return strings.Replace(doCluster, `"name": "api-fra1"`, fmt.Sprintf("%q: %q", "name", name), 1)
}

func benchPool(name string, nodes int) string {
	return fmt.Sprintf(`{"name": %q, "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": %d}}`, name, nodes)
}

// seed creates clusters clusters of pools pools each through the API, 16 requests at a time,
// and returns the clusters' ids and the pools' ids (cluster by cluster, oldest first).
func (a *benchAPI) seed(b *testing.B, clusters, pools int) ([]string, [][]string) {
	b.Helper()
	clusterIDs := make([]string, clusters)
	for c := range clusterIDs {
		out := a.must(b, http.StatusCreated, auth.Editor, "POST", "/api/v1/clusters", benchCluster(fmt.Sprintf("bench-%02d", c)))
		clusterIDs[c] = out["id"].(string)
	}
	poolIDs := make([][]string, clusters)
	for c := range poolIDs {
		poolIDs[c] = make([]string, pools)
	}
	errs := parallel(clusters*pools, 16, func(i int) error {
		c, p := i/pools, i%pools
		code, data, err := a.do(auth.Editor, "POST", "/api/v1/clusters/"+clusterIDs[c]+"/nodepools", benchPool(fmt.Sprintf("pool-%03d", p), 2))
		if err != nil {
			return err
		}
		if code != http.StatusCreated {
			return fmt.Errorf("create pool %d of cluster %d: %d %s", p, c, code, data)
		}
		var out struct{ ID string }
		if err := json.Unmarshal(data, &out); err != nil {
			return err
		}
		poolIDs[c][p] = out.ID
		return nil
	})
	if errs != nil {
		b.Fatal(errs)
	}
	return clusterIDs, poolIDs
}

// parallel runs f(0) to f(n-1), width at a time, and returns the first error.
func parallel(n, width int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range width {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// percentile is the p-th percentile (0 to 100) of sorted durations, in milliseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i]) / float64(time.Millisecond)
}

// reportOnEvery writes the status serve's workers would report on every pool (their report
// alone sets phase and health, and no API caller may make it, so it is written to the store): a
// quarter Ready and Healthy, a quarter Ready and Degraded, a quarter Failed, the rest
// Progressing. A status or health filter then selects 250 of 1,000.
func (a *benchAPI) reportOnEvery(b *testing.B, pools [][]string) {
	var all []string
	for _, ps := range pools {
		all = append(all, ps...)
	}
	reports := [][]store.Condition{
		{{Type: "Ready", Status: "True", Reason: "NodesReady"}},
		{{Type: "Ready", Status: "True", Reason: "NodesReady"}, {Type: "Degraded", Status: "True", Reason: "NodeNotReady"}},
		{{Type: "Ready", Status: "False", Reason: "Failed"}},
		{{Type: "Progressing", Status: "True", Reason: "Scaling"}},
	}
	st := storeOf(b, a.url)
	if err := parallel(len(all), 16, func(i int) error {
		report := store.ControllerStatus{ControllerName: reconcile.Controller, ObservedGeneration: 1,
			Conditions: slices.Clone(reports[i%len(reports)])}
		if err := st.Statuses().Put(context.Background(), store.NodePool, all[i], report); err != nil {
			return fmt.Errorf("report the status of pool %d: %w", i, err)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

// getAtOnce sends a viewer's GET of every path at once, one goroutine each, and records each
// one's latency in lat (as long as paths): a round of a portal's load.
func (a *benchAPI) getAtOnce(paths []string, lat []time.Duration) error {
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			code, data, err := a.do(auth.Viewer, "GET", paths[i], "")
			lat[i] = time.Since(began)
			if err == nil && code != http.StatusOK {
				err = fmt.Errorf("GET %s: %d %.200s", paths[i], code, data)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// BenchmarkListingAThousandPoolsWithFilters lists 1,000 pools in 10 clusters: across clusters
// with a status and a health filter that select a quarter of them (limit 100), and one
// cluster's second page of 50.
func BenchmarkListingAThousandPoolsWithFilters(b *testing.B) {
	onEachBenchDatabase(b, benchListingAThousandPoolsWithFilters)
}

func benchListingAThousandPoolsWithFilters(b *testing.B, a *benchAPI) {
	clusters, pools := a.seed(b, 10, 100)
	a.reportOnEvery(b, pools)
	lists := []struct {
		name, path          string
		wantTotal, wantPage int
	}{
		{"across-clusters-status=Ready-health=Healthy-limit=100", "/api/v1/nodepools?limit=100&status=Ready&health=Healthy", 250, 100},
		{"one-cluster-limit=50-offset=50", "/api/v1/clusters/" + clusters[3] + "/nodepools?limit=50&offset=50", 100, 50},
	}
	for _, l := range lists {
		out := a.must(b, http.StatusOK, auth.Viewer, "GET", l.path, "")
		if out["total"] != float64(l.wantTotal) || len(list(out["nodepools"])) != l.wantPage {
			b.Fatalf("%s: want total %d and a page of %d, got total %v and %d", l.path, l.wantTotal, l.wantPage, out["total"], len(list(out["nodepools"])))
		}
		b.Run(l.name, func(b *testing.B) {
			b.ResetTimer()
			for b.Loop() {
				code, data, err := a.do(auth.Viewer, "GET", l.path, "")
				if err != nil || code != http.StatusOK {
					b.Fatalf("GET %s: %d %v %.200s", l.path, code, err, data)
				}
			}
		})
	}
}

// BenchmarkTwoHundredConcurrentGets sends, each round, 200 GETs at once, one for each of 200
// pools, and reports the requests' latency (p50, p99) and the requests served a second; and,
// for comparison, one GET at a time.
func BenchmarkTwoHundredConcurrentGets(b *testing.B) {
	onEachBenchDatabase(b, benchTwoHundredConcurrentGets)
}

func benchTwoHundredConcurrentGets(b *testing.B, a *benchAPI) {
	const n = 200
	_, pools := a.seed(b, 2, n/2)
	paths := make([]string, 0, n)
	for _, ps := range pools {
		for _, id := range ps {
			paths = append(paths, "/api/v1/nodepools/"+id)
		}
	}
	round := func(lat []time.Duration) error { return a.getAtOnce(paths, lat) }
	// One GET at a time first, for comparison: what a request costs when nothing waits.
	b.Run("1-goroutine", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			code, data, err := a.do(auth.Viewer, "GET", paths[i%n], "")
			if err != nil || code != http.StatusOK {
				b.Fatalf("GET %s: %d %v %.200s", paths[i%n], code, err, data)
			}
		}
	})
	b.Run("200-goroutines", func(b *testing.B) {
		// A round first, untimed, opens the client's 200 connections.
		if err := round(make([]time.Duration, n)); err != nil {
			b.Fatal(err)
		}
		var all []time.Duration
		lat := make([]time.Duration, n)
		b.ResetTimer()
		began := time.Now()
		for b.Loop() {
			if err := round(lat); err != nil {
				b.Fatal(err)
			}
			all = append(all, lat...)
		}
		elapsed := time.Since(began)
		slices.Sort(all)
		b.ReportMetric(percentile(all, 50), "p50-ms")
		b.ReportMetric(percentile(all, 99), "p99-ms")
		b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	})
}

// BenchmarkAHundredConcurrentConditionalPuts sends, each round, 100 PUTs of one pool at once,
// all with the If-Match of the version the previous round's winner wrote: exactly one must win
// (200) and the other 99 must fail their precondition (412), every round. It reports the PUTs'
// p99 latency and a round's wall time.
func BenchmarkAHundredConcurrentConditionalPuts(b *testing.B) {
	onEachBenchDatabase(b, benchAHundredConcurrentConditionalPuts)
}

func benchAHundredConcurrentConditionalPuts(b *testing.B, a *benchAPI) {
	const n = 100
	_, pools := a.seed(b, 1, 1)
	path := "/api/v1/nodepools/" + pools[0][0]
	rv := a.must(b, http.StatusOK, auth.Viewer, "GET", path, "")["resource_version"].(string)
	codes := make([]int, n)
	bodies := make([][]byte, n)
	errs := make([]error, n)
	lat := make([]time.Duration, n)
	// round sends the PUTs and returns the winner's new resource version.
	round := func(ifMatch string) (string, error) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				began := time.Now()
				codes[i], bodies[i], errs[i] = a.do(auth.Editor, "PUT", path, benchPool("pool-000", 3+i%50), "If-Match", ifMatch)
				lat[i] = time.Since(began)
			}()
		}
		wg.Wait()
		count, next := map[int]int{}, ""
		for i := range n {
			if errs[i] != nil {
				return "", errs[i]
			}
			count[codes[i]]++
			if codes[i] == http.StatusOK {
				var out struct {
					ResourceVersion string `json:"resource_version"`
				}
				if err := json.Unmarshal(bodies[i], &out); err != nil {
					return "", err
				}
				next = out.ResourceVersion
			}
		}
		if count[http.StatusOK] != 1 || count[http.StatusPreconditionFailed] != n-1 {
			return "", fmt.Errorf("want exactly one 200 and %d 412s, got %v", n-1, count)
		}
		return next, nil
	}
	b.Run("100-goroutines-one-If-Match", func(b *testing.B) {
		// A round first, untimed, opens the client's connections.
		var err error
		if rv, err = round(rv); err != nil {
			b.Fatal(err)
		}
		var all, rounds []time.Duration
		b.ResetTimer()
		for b.Loop() {
			began := time.Now()
			if rv, err = round(rv); err != nil {
				b.Fatal(err)
			}
			rounds = append(rounds, time.Since(began))
			all = append(all, lat...)
		}
		slices.Sort(all)
		slices.Sort(rounds)
		b.ReportMetric(percentile(all, 99), "p99-ms")
		b.ReportMetric(percentile(rounds, 50), "round-p50-ms")
		b.ReportMetric(float64(rounds[len(rounds)-1])/float64(time.Millisecond), "round-max-ms")
		b.ReportMetric(float64(len(rounds)), "rounds-one-winner")
	})
}

// BenchmarkTwoHundredConcurrentClients is a portal's load (issue 63): 1,000 node pools in 10
// clusters, each reported on by a controller, and 200 clients sending at once, a round at a
// time. In "list" each client asks for one of the lists a portal shows (a filtered page of 100
// across clusters, one cluster's page of 50, a page of 50 of all pools, the clusters); in "get"
// each reads a pool of its own. Each reports the requests' p50 and p99 latency, the requests
// served a second, and the run's load: the test process's CPU (client and replica, in cores),
// the whole machine's CPU busy (PostgreSQL and anything else running included) and the most
// goroutines seen. `make bench-api` runs it.
func BenchmarkTwoHundredConcurrentClients(b *testing.B) {
	onEachBenchDatabase(b, benchTwoHundredConcurrentClients)
}

func benchTwoHundredConcurrentClients(b *testing.B, a *benchAPI) {
	const n = 200
	clusters, pools := a.seed(b, 10, 100)
	var all []string
	for _, ps := range pools {
		all = append(all, ps...)
	}
	a.reportOnEvery(b, pools)
	// What each of the 200 clients asks for, by the client's number.
	lists := func(i int) string {
		switch i % 4 {
		case 0:
			return "/api/v1/nodepools?limit=100&status=Ready&health=Healthy"
		case 1:
			return fmt.Sprintf("/api/v1/clusters/%s/nodepools?limit=50&offset=%d", clusters[i%10], 50*(i/4%2))
		case 2:
			return fmt.Sprintf("/api/v1/nodepools?offset=%d", 50*(i/4%20))
		}
		return "/api/v1/clusters"
	}
	gets := func(i int) string { return "/api/v1/nodepools/" + all[i*len(all)/n] }
	st := storeOf(b, a.url)
	cases := []struct {
		name  string
		path  func(i int) string
		alone bool
	}{{"list", lists, false}, {"get", gets, false}}
	// The same gets, each with queries of its own as before reads asked at once were put
	// together (store.joined): the two side by side in one run.
	cases = append(cases, struct {
		name  string
		path  func(i int) string
		alone bool
	}{"get-each-its-own-query", gets, true})
	for _, c := range cases[:2] {
		b.Run(c.name+"-clients-apart", func(b *testing.B) {
			paths := make([]string, n)
			for i := range paths {
				paths[i] = c.path(i)
			}
			a.runApart(b, paths, b.N).report(b)
		})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			st.ReadsAlone = c.alone
			defer func() { st.ReadsAlone = false }()
			paths := make([]string, n)
			for i := range paths {
				paths[i] = c.path(i)
			}
			round := func(lat []time.Duration) error { return a.getAtOnce(paths, lat) }
			// A round first, untimed, opens the client's 200 connections.
			if err := round(make([]time.Duration, n)); err != nil {
				b.Fatal(err)
			}
			var lats []time.Duration
			lat := make([]time.Duration, n)
			load := startLoad(a.databasePort)
			b.ResetTimer()
			began := time.Now()
			for b.Loop() {
				if err := round(lat); err != nil {
					b.Fatal(err)
				}
				lats = append(lats, lat...)
			}
			elapsed := time.Since(began)
			b.StopTimer()
			cpu, database, process, machine, goroutines := load.stop()
			slices.Sort(lats)
			b.ReportMetric(percentile(lats, 50), "p50-ms")
			b.ReportMetric(percentile(lats, 99), "p99-ms")
			b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "req/s")
			b.ReportMetric(process, "process-cores")
			// What a request cost in CPU, the client's and the replica's (this process) and the
			// database server's: the figure load on the machine changes least.
			b.ReportMetric(float64(cpu.Microseconds())/float64(len(lats)), "process-µs/req")
			b.ReportMetric(float64(database.Microseconds())/float64(len(lats)), "database-µs/req")
			b.ReportMetric(machine, "machine-busy-%")
			b.ReportMetric(float64(goroutines), "max-goroutines")
		})
	}
}

// load measures a run's load: the process's CPU time (getrusage), the machine's busy and idle
// ticks (/proc/stat, Linux only: 0 elsewhere), and the most goroutines, sampled every 5 ms.
type load struct {
	began time.Time
	cpu   time.Duration
	// database is the PostgreSQL server's port (0 on SQLite), and databaseCPU its CPU time.
	database    int
	databaseCPU time.Duration
	busy, idle  uint64
	done        chan struct{}
	most        chan int
}

func startLoad(database int) *load {
	l := &load{began: time.Now(), cpu: processCPU(), database: database, databaseCPU: serverCPU(database),
		done: make(chan struct{}), most: make(chan int, 1)}
	l.busy, l.idle = machineTicks()
	go func() {
		most := runtime.NumGoroutine()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-l.done:
				l.most <- most
				return
			case <-tick.C:
				most = max(most, runtime.NumGoroutine())
			}
		}
	}()
	return l
}

// stop returns the process's and the database server's CPU time, the process's CPU in cores (CPU
// time over wall time), the machine's busy share in percent, and the most goroutines seen.
func (l *load) stop() (cpu, database time.Duration, process, machinePercent float64, goroutines int) {
	wall := time.Since(l.began)
	cpu = processCPU() - l.cpu
	database = serverCPU(l.database) - l.databaseCPU
	busy, idle := machineTicks()
	close(l.done)
	goroutines = <-l.most
	if total := (busy - l.busy) + (idle - l.idle); total > 0 {
		machinePercent = 100 * float64(busy-l.busy) / float64(total)
	}
	return cpu, database, cpu.Seconds() / wall.Seconds(), machinePercent, goroutines
}

// serverCPU is the CPU time of the PostgreSQL server listening on port (0: none) and of its
// processes, from /proc (Linux only: 0 elsewhere): the postmaster's own and its exited
// children's, and each live child's (a connection's backend). The server's work is half of a
// read's cost, and on a busy machine it is steadier than a latency.
func serverCPU(port int) time.Duration {
	postmaster, children := postgresProcesses(port)
	if postmaster == "" {
		return 0
	}
	ticks := cpuTicks(postmaster, true)
	for _, child := range children {
		ticks += cpuTicks(child, false)
	}
	// Linux counts these in clock ticks of 1/100 s on every platform Go runs the bench on.
	return time.Duration(ticks) * 10 * time.Millisecond
}

// postgresProcesses finds the PostgreSQL server listening on port (0: none) in /proc: its
// postmaster's process id, "" when not found, and its children's (a connection's backend, the
// server's own helpers).
func postgresProcesses(port int) (postmaster string, children []string) {
	if port == 0 {
		return "", nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return "", nil
	}
	byParent := map[string][]string{}
	for _, e := range entries {
		pid := e.Name()
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		stat, err := procStat(pid)
		if err != nil || stat[0] != "postgres" {
			continue
		}
		byParent[stat[2]] = append(byParent[stat[2]], pid)
		args, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		if strings.Contains(string(args), fmt.Sprintf("\x00-p\x00%d\x00", port)) {
			postmaster = pid
		}
	}
	return postmaster, byParent[postmaster]
}

// procStat returns /proc/PID/stat's fields from the command's name on: name, state, parent...
func procStat(pid string) ([]string, error) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, err
	}
	// The name is in parentheses and may hold spaces: the fields after it follow the last ')'.
	open, end := strings.IndexByte(string(data), '('), strings.LastIndexByte(string(data), ')')
	if open < 0 || end < open {
		return nil, fmt.Errorf("/proc/%s/stat: no command name", pid)
	}
	return append([]string{string(data[open+1 : end])}, strings.Fields(string(data[end+1:]))...), nil
}

// cpuTicks is a process's user and system time, and its waited-for children's when withChildren.
func cpuTicks(pid string, withChildren bool) uint64 {
	stat, err := procStat(pid)
	if err != nil || len(stat) < 16 {
		return 0
	}
	// From the name on, utime, stime, cutime and cstime are fields 12 to 15.
	last := 13
	if withChildren {
		last = 15
	}
	var sum uint64
	for _, f := range stat[12 : last+1] {
		v, _ := strconv.ParseUint(f, 10, 64)
		sum += v
	}
	return sum
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineTicks reads the first line of /proc/stat: the ticks all CPUs spent busy and idle
// (idle and waiting for I/O).
func machineTicks() (busy, idle uint64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0
		}
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		} else {
			busy += v
		}
	}
	return busy, idle
}

// BenchmarkTwoHundredConcurrentClientsAtTenThousandClusters is the portal's load at a fleet's
// scale (issue 79): 10,000 clusters with 2 pools each, 20,000 pools, on PostgreSQL, and 200
// clients at once. In "list" each asks for a page a portal pages to by cursor (pools filtered by
// status, all pools, the clusters, each at a place spread over the whole list) or one cluster's
// pools; in "get" each reads a pool of its own, spread over the 20,000. Each round goes to the
// replica and, the same 200 paths at once, to a static Go server answering the bytes the
// replica gave (no token, no database), which of the two goes first swapping every round, so
// both meet the same machine; `p99-over-static` is the replica's p99 over the static server's.
// Seeding writes the objects to the store directly (the API's checks of each body are not what is measured). "list" also
// reports what a page cost when each list was read page by page by cursor once, before any page
// was saved (walk-*-ms/page).
func BenchmarkTwoHundredConcurrentClientsAtTenThousandClusters(b *testing.B) {
	const clusters, poolsEach, n = 10000, 2, 200
	db := databases[1].url(b)
	a := startBench(b, db)
	clusterIDs, poolIDs := seedStore(b, db, clusters, poolsEach)
	// walks are how long a page took, each list read page by page by cursor once, before any page
	// was saved: "list" reports them.
	var walks []pageWalk
	cursors := func(name, path string, perPage int) []string {
		out, w := walkByCursor(b, a, name, path, perPage)
		walks = append(walks, w)
		return out
	}
	pending := cursors("pending-pools", "/api/v1/nodepools?status=Pending", 100)
	allPools := cursors("pools", "/api/v1/nodepools", 50)
	allClusters := cursors("clusters", "/api/v1/clusters", 50)
	if len(allPools) != clusters*poolsEach/50-1 || len(allClusters) != clusters/50-1 {
		b.Fatalf("walked %d pages of pools and %d of clusters, want %d and %d", len(allPools)+1, len(allClusters)+1,
			clusters*poolsEach/50, clusters/50)
	}
	spread := func(cs []string, i int) string { return cs[i*len(cs)/n] }
	lists := func(i int) string {
		switch i % 4 {
		case 0:
			return "/api/v1/nodepools?limit=100&status=Pending&cursor=" + spread(pending, i)
		case 1:
			return "/api/v1/clusters/" + clusterIDs[i*clusters/n] + "/nodepools"
		case 2:
			return "/api/v1/nodepools?limit=50&cursor=" + spread(allPools, i)
		}
		return "/api/v1/clusters?limit=50&cursor=" + spread(allClusters, i)
	}
	gets := func(i int) string { return "/api/v1/nodepools/" + poolIDs[i*clusters/n][i%poolsEach] }
	for _, c := range []struct {
		name string
		path func(i int) string
	}{{"list", lists}, {"get", gets}} {
		b.Run(c.name, func(b *testing.B) {
			paths := make([]string, n)
			for i := range paths {
				paths[i] = c.path(i)
			}
			static := a.staticCopy(b, paths)
			lat := make([]time.Duration, n)
			// A round of each first, untimed, opens the clients' connections.
			for _, server := range []*benchAPI{a, static} {
				if err := server.getAtOnce(paths, lat); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			replica, fixed := a.roundsBeside(b, static, paths)
			b.StopTimer()
			slices.Sort(replica)
			slices.Sort(fixed)
			b.ReportMetric(percentile(replica, 50), "p50-ms")
			b.ReportMetric(percentile(replica, 99), "p99-ms")
			b.ReportMetric(percentile(fixed, 50), "static-p50-ms")
			b.ReportMetric(percentile(fixed, 99), "static-p99-ms")
			b.ReportMetric(percentile(replica, 99)/percentile(fixed, 99), "p99-over-static")
			if c.name == "list" {
				for _, w := range walks {
					b.ReportMetric(w.pageMS, "walk-"+w.name+"-ms/page")
				}
			}
		})
	}
}

// roundsBeside sends paths at once to a and then to static, a round each until the benchmark's
// rounds are done, and returns every latency of each. The two swap places every round. What a
// round follows is not neutral: the static server's pages were about a tenth faster at p99
// after a round of the replica's than after one of its own, and a fixed order gave it that place
// every time.
func (a *benchAPI) roundsBeside(b *testing.B, static *benchAPI, paths []string) (replica, fixed []time.Duration) {
	lat := make([]time.Duration, len(paths))
	for round := 0; b.Loop(); round++ {
		order := []*benchAPI{a, static}
		if round%2 == 1 {
			order = []*benchAPI{static, a}
		}
		for _, server := range order {
			if err := server.getAtOnce(paths, lat); err != nil {
				b.Fatal(err)
			}
			if server == a {
				replica = append(replica, lat...)
			} else {
				fixed = append(fixed, lat...)
			}
		}
	}
	return replica, fixed
}

// pageWalk is how long a page of the list name took, read page by page by cursor.
type pageWalk struct {
	name   string
	pageMS float64
}

// walkByCursor reads every page of the list at path, perPage a page, following each page's
// next_cursor, and returns the cursor of each page after the first and how long a page took.
func walkByCursor(b *testing.B, a *benchAPI, name, path string, perPage int) ([]string, pageWalk) {
	b.Helper()
	var out []string
	began := time.Now()
	next := ""
	for {
		p := fmt.Sprintf("%s%slimit=%d", path, map[bool]string{true: "&", false: "?"}[strings.Contains(path, "?")], perPage)
		if next != "" {
			p += "&cursor=" + next
		}
		page := a.must(b, http.StatusOK, auth.Viewer, "GET", p, "")
		c, _ := page["next_cursor"].(string)
		if c == "" {
			break
		}
		out = append(out, c)
		next = c
	}
	return out, pageWalk{name, float64(time.Since(began).Microseconds()) / 1000 / float64(len(out)+1)}
}

// seedStore writes clusters clusters of pools pools each to the database db through a store of
// its own (no reconcile queued), 16 at a time, each with the spec a body of the benchmark's
// sends, and returns their ids: the clusters', and each cluster's pools'.
func seedStore(b *testing.B, db string, clusters, pools int) ([]string, [][]string) {
	b.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	specOf := func(body string) json.RawMessage {
		var v struct{ Spec json.RawMessage }
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			b.Fatal(err)
		}
		return v.Spec
	}
	clusterSpec, poolSpec := specOf(benchCluster("x")), specOf(benchPool("x", 2))
	clusterIDs := make([]string, clusters)
	if err := parallel(clusters, 16, func(i int) error {
		o, err := st.Objects().Create(context.Background(), store.Object{Type: store.Cluster, Name: fmt.Sprintf("fleet-%05d", i), Spec: clusterSpec, CreatedBy: "bench"})
		clusterIDs[i] = o.ID
		return err
	}); err != nil {
		b.Fatal(err)
	}
	poolIDs := make([][]string, clusters)
	for c := range poolIDs {
		poolIDs[c] = make([]string, pools)
	}
	if err := parallel(clusters*pools, 16, func(i int) error {
		c, p := i/pools, i%pools
		o, err := st.Objects().Create(context.Background(), store.Object{Type: store.NodePool, Name: fmt.Sprintf("pool-%d", p), ClusterID: clusterIDs[c],
			Spec: poolSpec, CreatedBy: "bench"})
		poolIDs[c][p] = o.ID
		return err
	}); err != nil {
		b.Fatal(err)
	}
	return clusterIDs, poolIDs
}

// staticCopy starts a static Go server answering each of paths with the bytes the replica
// answers it with now, its headers as well as its body (all but Date and Content-Length, which
// the server writes itself), and returns a client of it like a's.
func (a *benchAPI) staticCopy(b *testing.B, paths []string) *benchAPI {
	b.Helper()
	type answer struct {
		header http.Header
		body   []byte
	}
	answers := map[string]answer{}
	for _, p := range paths {
		code, header, data, err := a.answer(auth.Viewer, "GET", p, "")
		if err != nil || code != http.StatusOK {
			b.Fatalf("GET %s: %d %v %.200s", p, code, err, data)
		}
		header.Del("Date")
		header.Del("Content-Length")
		answers[p] = answer{header, data}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ans, ok := answers[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range ans.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(ans.body)
	}))
	b.Cleanup(srv.Close)
	transport := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	b.Cleanup(transport.CloseIdleConnections)
	return &benchAPI{url: srv.URL, tokens: a.tokens, client: &http.Client{Transport: transport, Timeout: time.Minute}}
}
