package relay_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/humanauth"
)

// TestConcurrentUploadsAreCapped: the relay reads at most four bodies at
// once. Four senders that stall mid-body hold every slot; a fifth post is
// not read (no answer) until one of them ends, and then it is. A post to
// an unknown request is still refused at once: its id is checked before
// it waits for a slot.
func TestConcurrentUploadsAreCapped(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, _ := pending(t, store, "req-cap", "camera", nil, time.Minute)
	post := func(url string, body io.Reader, size int64) <-chan int {
		done := make(chan int, 1)
		req, err := http.NewRequest(http.MethodPost, url, body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=zzz")
		req.ContentLength = size
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- -1
				return
			}
			res.Body.Close()
			done <- res.StatusCode
		}()
		return done
	}
	// No token in the URL: the body is read (up to 64 KiB) for its "t".
	url := srv.URL + "/a/default/auth/req-cap"
	var stalled []*io.PipeWriter
	var stalledDone []<-chan int
	defer func() { // never leave a stalled sender behind (the server's Close waits for it)
		for _, pw := range stalled {
			pw.CloseWithError(io.ErrUnexpectedEOF)
		}
	}()
	for range 4 {
		pr, pw := io.Pipe()
		stalled = append(stalled, pw)
		stalledDone = append(stalledDone, post(url, pr, 60<<10))
		_, err := pw.Write([]byte("--zzz\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n")) // then nothing
		require.NoError(t, err)
	}
	// A post that finds every slot taken is not read. The stalled senders
	// take their slots as the server gets to them: a post answered at
	// once may have come first, so try again (without the cap every try
	// is answered at once).
	form := "--zzz\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nwrong\r\n--zzz--\r\n"
	var fifth <-chan int
	for try := 0; fifth == nil; try++ {
		require.Less(t, try, 10, "every post was read while four uploads held every slot")
		p := post(url, strings.NewReader(form), int64(len(form)))
		select {
		case <-p:
		case <-time.After(time.Second):
			fifth = p
		}
	}
	select {
	case code := <-post(srv.URL+"/a/default/auth/req-nobody?t="+strings.Repeat("A", 43), strings.NewReader(form), int64(len(form))):
		assert.Equal(t, http.StatusNotFound, code, "an unknown request is refused without waiting for a slot")
	case <-time.After(10 * time.Second):
		t.Fatal("a post to an unknown request waited for an upload slot")
	}
	stalled[0].CloseWithError(io.ErrUnexpectedEOF) // one upload ends: its slot frees
	select {
	case code := <-fifth:
		assert.NotEqual(t, -1, code)
		assert.NotEqual(t, http.StatusOK, code, "the fifth post had a wrong token")
	case <-time.After(10 * time.Second):
		t.Fatal("the fifth post was never read after a slot freed")
	}
	for i, pw := range stalled {
		pw.Close()
		<-stalledDone[i]
	}
}
