package android

import (
	"fmt"
	"path"
	"strings"
)

// mediaState is what the media scanner indexed.
type mediaState struct {
	scanned []string
}

// actionScanFile is the intent apps (and adb users) send to index a file.
const actionScanFile = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"

// amBroadcast answers `am broadcast -a ACTION [-d URI] ...` as Android
// prints it; MEDIA_SCANNER_SCAN_FILE of an existing file:// path adds the
// file to the media index (what the gallery and pickers show).
//
//	Broadcasting: Intent { act=android.intent.action.MEDIA_SCANNER_SCAN_FILE dat=file:///sdcard/Download/x.png flg=0x400000 }
//	Broadcast completed: result=0
func amBroadcast(p *Phone, c *cmdIO, args []string) int {
	var act, dat string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-a", "-d":
			if i+1 >= len(args) {
				c.errorf("Error: No argument for %s", args[i])
				return 1
			}
			if args[i] == "-a" {
				act = args[i+1]
			} else {
				dat = args[i+1]
			}
			i++
		}
	}
	var desc []string
	if act != "" {
		desc = append(desc, "act="+act)
	}
	if dat != "" {
		desc = append(desc, "dat="+dat)
	}
	desc = append(desc, "flg=0x400000")
	fmt.Fprintf(c.stdout, "Broadcasting: Intent { %s }\n", strings.Join(desc, " "))
	if file, ok := strings.CutPrefix(dat, "file://"); ok && act == actionScanFile {
		if _, err := p.fs.Stat(path.Clean(file)); err == nil {
			p.locked(func() { p.st.media.scanned = append(p.st.media.scanned, path.Clean(file)) })
		}
	}
	fmt.Fprintln(c.stdout, "Broadcast completed: result=0")
	return 0
}

// ScannedMedia returns the paths the media scanner was asked to index.
func (p *Phone) ScannedMedia() (paths []string) {
	p.locked(func() { paths = append(paths, p.st.media.scanned...) })
	return
}
