package instancetype

import "testing"

func TestDOKSReservationFollowsGKEsPublishedSteps(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cpus, memory  int64
		wantMilliCPU  int64
		wantMemoryMiB int64
	}{
		{"one core and 2 GiB reserve 60m and a quarter", 1, 2048, 60, 512},
		{"two cores and 4 GiB reserve 70m and 1 GiB", 2, 4096, 70, 1024},
		{"four cores and 8 GiB reserve 80m and 1.8 GiB", 4, 8192, 80, 1024 + 819},
		{"eight cores and 16 GiB reserve 90m and 2.6 GiB", 8, 16384, 90, 1024 + 819 + 819},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := reservedMilliCPU(tc.cpus); got != tc.wantMilliCPU {
				t.Errorf("cpu: %dm, want %dm", got, tc.wantMilliCPU)
			}
			if got := reservedMiB(tc.memory); got != tc.wantMemoryMiB {
				t.Errorf("memory: %d MiB, want %d", got, tc.wantMemoryMiB)
			}
		})
	}
}
