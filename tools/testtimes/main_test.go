package main

import (
	"strings"
	"testing"
)

func TestWhatARunSaysOfItsTests(t *testing.T) {
	tests := []struct {
		name    string
		events  []string
		failed  bool
		says    []string
		saysNot []string
		// maxBytes is the output kept of a test, 1 MiB when 0.
		maxBytes int
	}{
		{name: "passing tests are one line a package and their times at the end", events: []string{
			`{"Action":"run","Package":"p","Test":"TestA"}`,
			`{"Action":"output","Package":"p","Test":"TestA","Output":"chatty line\n"}`,
			`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":12.5}`,
			`{"Action":"pass","Package":"p","Test":"TestB","Elapsed":1}`,
			`{"Action":"pass","Package":"p","Test":"TestA/sub","Elapsed":3}`,
			`{"Action":"pass","Package":"p","Elapsed":14}`,
		}, says: []string{"ok  \tp\t14.000s", "the 2 slowest tests:", "12.5s  TestA", "1s  TestB"}, saysNot: []string{"chatty line", "TestA/sub"}},
		{name: "a failed test's output is written whole", events: []string{
			`{"Action":"output","Package":"p","Test":"TestA","Output":"want 2, got 3\n"}`,
			`{"Action":"fail","Package":"p","Test":"TestA","Elapsed":2}`,
			`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
			`{"Action":"fail","Package":"p","Elapsed":2}`,
		}, failed: true, says: []string{"--- FAIL: TestA (2.00s)\nwant 2, got 3", "FAIL\tp\t2.000s"}},
		{name: "a test still running when its package failed is written too", events: []string{
			`{"Action":"output","Package":"p","Test":"TestSlow","Output":"waiting for the cloud\n"}`,
			`{"Action":"output","Package":"p","Output":"panic: test timed out after 75m0s\n"}`,
			`{"Action":"fail","Package":"p","Elapsed":4500}`,
		}, failed: true, says: []string{"--- unfinished: TestSlow\nwaiting for the cloud", "panic: test timed out"}},
		{name: "a build's errors are written and fail the run", events: []string{
			`{"ImportPath":"p [p.test]","Action":"build-output","Output":"# p [p.test]\n"}`,
			`{"ImportPath":"p [p.test]","Action":"build-output","Output":"./x_test.go:3:1: undefined: y\n"}`,
			`{"ImportPath":"p [p.test]","Action":"build-fail"}`,
			`{"Action":"start","Package":"p"}`,
			`{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}`,
			`{"Action":"fail","Package":"p","Elapsed":0,"FailedBuild":"p [p.test]"}`,
		}, failed: true, says: []string{"./x_test.go:3:1: undefined: y", "FAIL\tp [build failed]"}},
		{name: "a test's output past its limit is cut, saying so", events: []string{
			`{"Action":"output","Package":"p","Test":"TestLoud","Output":"0123456789\n"}`,
			`{"Action":"output","Package":"p","Test":"TestLoud","Output":"0123456789\n"}`,
			`{"Action":"output","Package":"p","Test":"TestLoud","Output":"the end\n"}`,
			`{"Action":"fail","Package":"p","Test":"TestLoud","Elapsed":1}`,
			`{"Action":"fail","Package":"p","Elapsed":1}`,
		}, failed: true, says: []string{"0123456789\n" + cutNote}, saysNot: []string{"the end"}, maxBytes: 11},
		{name: "a build error outside the stream fails the run", events: []string{
			`# p`, `./x.go:3:1: syntax error`,
		}, failed: true, says: []string{"./x.go:3:1: syntax error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			r := &run{out: &out, output: map[string]*strings.Builder{}, times: map[string]float64{}, maxBytes: 1 << 20}
			if tt.maxBytes > 0 {
				r.maxBytes = tt.maxBytes
			}
			if err := r.read(strings.NewReader(strings.Join(tt.events, "\n") + "\n")); err != nil {
				t.Fatal(err)
			}
			r.writeSlowest(15)
			if failed := r.failed || r.passed == 0; failed != tt.failed {
				t.Errorf("failed: %v, want %v", failed, tt.failed)
			}
			for _, want := range tt.says {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output does not say %q:\n%s", want, out.String())
				}
			}
			for _, not := range tt.saysNot {
				if strings.Contains(out.String(), not) {
					t.Errorf("output says %q:\n%s", not, out.String())
				}
			}
		})
	}
}
