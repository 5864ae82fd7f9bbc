package dashboard

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowAgent's job runs until release is closed, then fails with a reason;
// it has no device to show.
type slowAgent struct {
	*fakeAgent
	release chan struct{}
}

func (s slowAgent) RunJob(context.Context, string) (string, error) {
	<-s.release
	return "", errors.New("run job \"j1\" failed: several devices attached: a (device), b (device)")
}

func (s slowAgent) Device(context.Context) (string, error) {
	return "", errors.New("several devices attached: a (device), b (device)")
}

type slowManager struct{ a slowAgent }

func (m slowManager) Agents(ctx context.Context) ([]AgentSummary, error) {
	return fakeManager{m.a.fakeAgent}.Agents(ctx)
}
func (m slowManager) Agent(string) (Agent, error) { return m.a, nil }

// TestRunNowSaysWhatReallyHappened: a job that outlasts the form's wait
// is "still running", then the page lists it failed with its reason; the
// screen area says why there is no screen instead of a broken image.
func TestRunNowSaysWhatReallyHappened(t *testing.T) {
	a := slowAgent{fakeAgent: &fakeAgent{enabled: map[string]bool{}, md: sessionMD}, release: make(chan struct{})}
	s := New(slowManager{a}, Options{})
	s.wait = 50 * time.Millisecond
	w := do(s, "POST", "/a/a/jobs/j1/run", nil, nil)
	loc, err := url.Parse(w.Header().Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "job j1: still running; its result appears under Recent actions", loc.Query().Get("msg"))
	page := do(s, "GET", "/a/a/", nil, nil).Body.String()
	assert.Contains(t, page, "job j1: <b>running</b>")

	close(a.release)
	require.Eventually(t, func() bool {
		return len(s.actions.list("a")) == 1 && s.actions.list("a")[0].Done
	}, 5*time.Second, 10*time.Millisecond)
	page = do(s, "GET", "/a/a/?msg="+url.QueryEscape("failed: job j1: x"), nil, nil).Body.String()
	assert.Contains(t, page, `job j1: <span class="err">failed: run job &#34;j1&#34; failed: several devices attached`)
	assert.Contains(t, page, `<p class="flash err" id="flash">`, "a failure is shown as one")
	assert.Contains(t, page, `<p class="err" id="noscreen">No screen: several devices attached: a (device), b (device)</p>`)
	assert.Contains(t, page, `id="tapform" hidden`)
	assert.NotContains(t, page, `src="/a/a/screen.png"`, "no broken image")
}
