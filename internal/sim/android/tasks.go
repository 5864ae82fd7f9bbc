package android

import (
	"image/color"
	"sort"
	"strconv"
)

// PkgTasks is a to-do list whose changes are small on screen: ticking a
// CheckBox recolours a 24 dp box and the toolbar's badge counts the tasks
// left ("4" → "3"), modelled on real dumps of to-do and shopping-list apps
// (a clickable row holding an android.widget.CheckBox without text and a
// TextView title; a TextView badge in the toolbar). Freshness tests use it: neither change moves the coarse
// perceptual hash.
const PkgTasks = "com.openpocket.tasks"

// taskTitles are the rows of the Tasks app, in order.
var taskTitles = []string{"Buy milk", "Call the bank", "Water the plants", "Book the dentist"}

func init() {
	apps = append(apps, &app{pkg: PkgTasks, label: "Tasks", mainActivity: ".TasksActivity", launchable: true,
		activities: []string{".TasksActivity"}, uid: 10107})
	sort.Slice(apps, func(i, j int) bool { return apps[i].pkg < apps[j].pkg })
	toolbarColors[PkgTasks] = color.RGBA{123, 31, 162, 255}
	iconColors[PkgTasks] = color.RGBA{171, 71, 188, 255}
}

// The ticked tasks live in the phone's settings map under a namespace no
// `settings` command reads, so Reset and a fresh boot clear them with the
// rest of the state.
func taskKey(i int) string { return "openpocket.tasks/done_" + strconv.Itoa(i) }

// TaskDone reports whether the i-th task is ticked, for tests.
func (p *Phone) TaskDone(i int) (done bool) {
	p.locked(func() { done = p.st.settings[taskKey(i)] == "1" })
	return
}

// tasksLeft counts the unticked tasks.
func (p *Phone) tasksLeftLocked() int {
	n := 0
	for i := range taskTitles {
		if p.st.settings[taskKey(i)] != "1" {
			n++
		}
	}
	return n
}

func (p *Phone) toggleTaskLocked(i int) {
	if p.st.settings[taskKey(i)] == "1" {
		delete(p.st.settings, taskKey(i))
	} else {
		p.st.settings[taskKey(i)] = "1"
	}
	p.changed()
}

// tasksView is the Tasks screen: a toolbar with the count badge, then one
// clickable row per task: a 24 dp CheckBox and the task's title beside it.
func (b *builder) tasksView() *view {
	root := b.root(colPage)
	top := b.toolbar(root, "Tasks")
	p := b.p
	id := func(s string) string { return PkgTasks + ":id/" + s }
	badge := b.text(b.rect(b.w-b.dp(48), b.statusH+b.dp(16), b.w-b.dp(24), b.statusH+b.dp(40)),
		strconv.Itoa(p.tasksLeftLocked()), id("remaining_badge"))
	badge.look.bg, badge.look.fg, badge.look.center = colError, colWhite, true
	root.add(badge)
	list := b.node(clsRecycler, b.rect(0, top, b.w, b.h-b.navH))
	list.resID = id("task_list")
	rowH := b.dp(56)
	for i, title := range taskTitles {
		y := top + i*rowH
		idx := i
		row := b.node(clsLinear, b.rect(0, y, b.w, y+rowH))
		row.resID, row.clickable, row.focusable = id("task_row"), true, true
		row.onTap = func() { p.toggleTaskLocked(idx) }
		cb := b.node("android.widget.CheckBox", b.rect(b.dp(16), y+b.dp(16), b.dp(40), y+b.dp(40)))
		cb.resID, cb.checkable, cb.clickable, cb.focusable = id("task_check"), true, true, true
		cb.checked = p.st.settings[taskKey(i)] == "1"
		cb.onTap = row.onTap
		cb.look.bg = colDisabled
		if cb.checked {
			cb.look.bg = colAccent
		}
		t := b.text(b.rect(b.dp(56), y, b.w-b.dp(16), y+rowH), title, id("task_title"))
		list.add(row.add(cb, t))
	}
	return root.add(list)
}
