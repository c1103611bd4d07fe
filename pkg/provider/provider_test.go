package provider_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/provider"
)

func TestSettingFallsBackToTheEnvironmentOnlyWhenEmpty(t *testing.T) {
	t.Setenv(provider.CivoAPIURLEnv, "https://env.example")
	tests := []struct{ value, want string }{
		{"https://file.example", "https://file.example"},
		{"", "https://env.example"},
	}
	for _, tt := range tests {
		if got := provider.Setting(tt.value, provider.CivoAPIURLEnv); got != tt.want {
			t.Errorf("Setting(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
	t.Setenv(provider.CivoAPIURLEnv, "")
	if got := provider.Setting("", provider.CivoAPIURLEnv); got != "" {
		t.Errorf("Setting with nothing set = %q, want empty", got)
	}
}
