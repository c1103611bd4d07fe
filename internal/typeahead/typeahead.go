// Package typeahead keeps what a person types before clusterplane's first question, e.g.
// "Deploy? [y/N]", for that question.
//
// clusterplane links github.com/charmbracelet/bubbletea (through the Pulumi SDK's cmdutil). Its
// init asks lipgloss whether the terminal's background is dark, and termenv finds out by writing
// ESC]11;? and ESC[6n to the terminal and reading the reply from it. That read swallows whatever
// the person has already typed, and on a terminal that never answers it waits 5 seconds.
//
// termenv asks nothing when TERM starts with "dumb" (termStatusReport in termenv_unix.go). So
// this package's init sets TERM=dumb, and RestoreTerm, which package main's init calls once
// every other package's init has run, puts TERM back as it was, set or unset. Only those inits
// see TERM=dumb (none in clusterplane reads TERM as it initializes); clusterplane's own code and
// the programs it starts (the Pulumi CLI, plugins) see the TERM the person has. (CI=true would
// stop the question too, but it tells more than "do not ask the terminal".)
//
// This works only because this init runs before bubbletea's. Go initializes packages in
// dependency order and, among those ready, in import-path order. This package imports only "os",
// which termenv needs too, so it is ready no later than termenv; its path,
// github.com/clusterplane/..., sorts before github.com/muesli/termenv; so it runs before termenv,
// and so before lipgloss and bubbletea, which need termenv. Keep this package to the standard
// library: a dependency termenv does not have could make it wait past bubbletea's init.
// TestClusterplaneAsksTheTerminalNothingAtStart in cmd/clusterplane checks the order.
package typeahead

import "os"

// term is TERM as clusterplane was started with it; hadTerm tells whether it was set at all.
var term, hadTerm = os.LookupEnv("TERM")

func init() {
	// An error here leaves TERM as it was: the terminal is asked, as it was before this package.
	_ = os.Setenv("TERM", "dumb")
}

// RestoreTerm puts TERM back as clusterplane was started with it. Package main calls it in its
// init: by then bubbletea's init has run, and nothing has started a program yet.
func RestoreTerm() {
	if hadTerm {
		_ = os.Setenv("TERM", term)
	} else {
		_ = os.Unsetenv("TERM")
	}
}
