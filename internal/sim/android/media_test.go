package android

import (
	"slices"
	"testing"
	"time"
)

func TestBroadcastMediaScannerIndexesExistingFiles(t *testing.T) {
	p := New(Options{})
	if err := p.Files().WriteFile("/sdcard/Download/a.png", []byte("\x89PNG"), 0o644, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, p, "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///sdcard/Download/a.png")
	want := "Broadcasting: Intent { act=android.intent.action.MEDIA_SCANNER_SCAN_FILE dat=file:///sdcard/Download/a.png flg=0x400000 }\nBroadcast completed: result=0\n"
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	mustRun(t, p, "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///sdcard/Download/missing.png")
	mustRun(t, p, "am broadcast -a android.intent.action.BOOT_COMPLETED")
	if got := p.ScannedMedia(); !slices.Equal(got, []string{"/sdcard/Download/a.png"}) {
		t.Fatalf("scanned %q", got)
	}
	if r := run(t, p, "am broadcast -a"); r.code != 1 {
		t.Fatalf("am broadcast -a without action: exit %d", r.code)
	}
}
