package importscheck

import (
	"sort"
	"strings"
	"testing"
)

// roleGraph is the role folders' graph: an edge from each role folder to each other one a package
// of it imports (non-test imports only), with one such import for each edge, the first by name,
// to name in a failure.
func roleGraph(t *testing.T) map[string]map[string]string {
	t.Helper()
	graph := map[string]map[string]string{}
	for from, imps := range imports(t) {
		for _, imp := range imps {
			a, b := role(from), role(imp)
			if a == b {
				continue
			}
			if graph[a] == nil {
				graph[a] = map[string]string{}
			}
			example := from + " → " + imp
			if old, ok := graph[a][b]; !ok || example < old {
				graph[a][b] = example
			}
		}
	}
	return graph
}

// cycles are the cycles of graph, one for each group of role folders that reach each other
// (a strongly connected component of two or more), each as its folders in order, the first
// folder (the least by name) written again at the end.
func cycles(graph map[string]map[string]string) [][]string {
	var nodes []string
	seen := map[string]bool{}
	for a, out := range graph {
		for b := range out {
			for _, n := range []string{a, b} {
				if !seen[n] {
					seen[n] = true
					nodes = append(nodes, n)
				}
			}
		}
	}
	sort.Strings(nodes)
	reach := func(from string) map[string]bool {
		found := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range sortedKeys(graph[n]) {
				if !found[m] {
					found[m] = true
					stack = append(stack, m)
				}
			}
		}
		return found
	}
	var out [][]string
	done := map[string]bool{}
	for _, n := range nodes {
		if done[n] || !reach(n)[n] {
			continue
		}
		// The group of n: the folders n reaches that reach n back.
		group := map[string]bool{}
		for m := range reach(n) {
			if reach(m)[n] {
				group[m] = true
				done[m] = true
			}
		}
		out = append(out, shortestCycle(graph, n, group))
	}
	return out
}

// shortestCycle is the shortest path from start back to start within group, breadth first, the
// folders visited in name order so the same graph always names the same cycle.
func shortestCycle(graph map[string]map[string]string, start string, group map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range sortedKeys(graph[n]) {
			if !group[m] {
				continue
			}
			if m == start {
				path := []string{start}
				for at := n; at != start; at = prev[at] {
					path = append([]string{at}, path...)
				}
				return append([]string{start}, path...)
			}
			if _, ok := prev[m]; !ok {
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A loop between role folders, however many folders it passes through, makes them one room:
// none of them can be read, built or tested without the others, and the loop's packages link
// what every folder on it links (a computation links the clouds' clients). The role folders'
// graph, built from every package's non-test imports under pkg/, has no cycle; a failure names
// the cycle's folders and, for each step, one import that makes it.
func TestTheRoleFoldersImportNoCycleThroughAnyNumberOfFolders(t *testing.T) {
	graph := roleGraph(t)
	for _, c := range cycles(graph) {
		var steps []string
		for i := 0; i+1 < len(c); i++ {
			steps = append(steps, graph[c[i]][c[i+1]])
		}
		t.Errorf("the role folders loop: %s\n\t%s", strings.Join(c, " → "), strings.Join(steps, "\n\t"))
	}
}

// The check itself, on graphs whose cycles are known: a loop through a third folder is found,
// a pair is found, and a graph that only fans out is no cycle.
func TestACycleIsFoundThroughAnyNumberOfFoldersAndNamedByItsImports(t *testing.T) {
	edge := func(pairs ...string) map[string]map[string]string {
		g := map[string]map[string]string{}
		for _, p := range pairs {
			a, b, _ := strings.Cut(p, ">")
			if g[a] == nil {
				g[a] = map[string]string{}
			}
			g[a][b] = a + "/x → " + b + "/y"
		}
		return g
	}
	tests := []struct {
		name  string
		graph map[string]map[string]string
		want  []string
	}{
		{"a loop through a third folder", edge("cloud>change", "change>manifest", "manifest>cloud", "deploy>cloud"),
			[]string{"change → manifest → cloud → change"}},
		{"two folders importing each other", edge("a>b", "b>a"), []string{"a → b → a"}},
		{"a graph that fans out without returning", edge("deploy>cloud", "deploy>change", "cloud>change", "change>manifest"), nil},
		{"two separate loops", edge("a>b", "b>a", "c>d", "d>e", "e>c"), []string{"a → b → a", "c → d → e → c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range cycles(tt.graph) {
				got = append(got, strings.Join(c, " → "))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("cycles = %q, want %q", got, tt.want)
			}
		})
	}
}
