package dashboard

import "html/template"

func parsePages() *template.Template {
	return template.Must(template.New("pages").Funcs(template.FuncMap{"sortedKeys": sortedKeys}).Parse(pageTemplates))
}

// pageTemplates are the pages. The script on the agent page only reloads
// the screen image and the steps (and tells a tap the image's shown
// width); every action is a plain form. Every page fits a 390 px phone;
// the flash message floats over the page so it never moves the screen.
const pageTemplates = `
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}} · OpenPocket</title>
<style>
*,*::before,*::after{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7;overflow-wrap:break-word}
header{background:#1d1d1f;color:#fff;padding:10px 20px}header a{color:#fff;text-decoration:none}
main{padding:16px 20px;display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start}
section{background:#fff;border-radius:10px;padding:12px 16px;box-shadow:0 1px 3px #0002;min-width:min(280px,100%);max-width:100%}
h2{font-size:16px;margin:4px 0 10px}table{border-collapse:collapse;max-width:100%}td,th{padding:4px 10px;text-align:left;border-bottom:1px solid #eee}
.ok{color:#0a7d28}.off{color:#888}.err{color:#b00020}form.inline{display:inline}
#screen{width:360px;max-width:100%;height:auto;border:1px solid #ccc;border-radius:8px;cursor:crosshair;display:block}
pre{background:#f0f0f0;padding:6px;white-space:pre-wrap;max-width:min(720px,100%)}img.shot{max-width:min(270px,100%);border:1px solid #ccc;display:block;margin:6px 0}
.step{border-left:3px solid #0071e3;padding-left:8px;margin:6px 0;display:flex;gap:8px;align-items:flex-start}
.step img.thumb{width:48px;border:1px solid #ccc;border-radius:4px;flex:none}.step code{font:13px ui-monospace,monospace}
.flash{position:fixed;left:12px;right:12px;bottom:12px;z-index:10;margin:0;background:#fffbe6;padding:8px 12px;border-radius:6px;box-shadow:0 2px 8px #0003}
@media (max-width:600px){header{padding:10px 12px}main{padding:10px;gap:12px}section{width:100%;padding:10px 12px}td,th{padding:4px 6px}
#agents tr:first-child{display:none}#agents tr,#jobs tr{display:block;border-bottom:1px solid #eee;padding:4px 0}#agents td,#jobs td{display:inline-block;border:0;padding:2px 6px}}
</style></head><body>{{end}}

{{define "manager"}}{{template "head" "Agents"}}
<header><a href="/">OpenPocket</a> · agents</header>
<main><section><h2>Agents</h2>
{{if .Err}}<p class="err">{{.Err}}</p>{{end}}
<table id="agents"><tr><th>Agent</th><th>Target</th><th>Binding</th><th>Channels</th><th>Gateway</th></tr>
{{range .Agents}}<tr data-agent="{{.ID}}"><td><a href="/a/{{.ID}}/">{{.ID}}</a></td><td>{{.TargetType}}</td>
<td>{{if .Binding}}{{.Binding}}{{else}}<span class="off">not bound</span>{{end}}</td>
<td>{{if .Channels}}{{range $i, $c := .Channels}}{{if $i}}, {{end}}{{$c}}{{end}}{{else}}<span class="off">none</span>{{end}}</td>
<td class="{{if .GatewayRunning}}ok{{else}}off{{end}}">{{.Gateway}}</td></tr>{{end}}
</table></section>
{{range .Agents}}{{if .Fleet}}<section class="fleet" data-agent="{{.ID}}"><h2>Fleet of {{.ID}}</h2>
{{if .FleetPaused}}<p class="err">Redis unreachable: fleet jobs paused.</p>{{end}}
<ul>{{range .Fleet}}<li>{{.}}</li>{{end}}</ul></section>{{end}}{{end}}
</main></body></html>{{end}}

{{define "steps"}}<div id="steps">{{if .Session}}<p>Running <b>{{.Task}}</b> (session {{.Session}})</p>
{{range .Lines}}<div class="step">{{if .Thumb}}<img class="thumb" src="{{.Thumb}}" alt="screen after step {{.N}}">{{end}}<div><b>Step {{.N}}</b> <code>{{.Action}}</code>{{if .Result}}<br><small>{{.Result}}</small>{{end}}</div></div>{{end}}
{{else}}<p class="off">No task running.</p>{{end}}</div>{{end}}

{{define "agent"}}{{template "head" .ID}}
<header><a href="/">OpenPocket</a> · agent <b>{{.ID}}</b></header>
<main>
{{if .Flash}}<p class="flash{{if .FlashFailed}} err{{end}}" id="flash">{{.Flash}}</p>{{end}}
{{range .Errs}}<p class="err">{{.}}</p>{{end}}
{{template "pendingauth" .}}
<section><h2>Agent</h2><table>
<tr><td>Gateway</td><td id="gateway" class="{{if .Summary.GatewayRunning}}ok{{else}}off{{end}}">{{.Summary.Gateway}}</td></tr>
<tr><td>Target</td><td id="target">{{.Summary.TargetType}} {{if .Summary.Binding}}{{.Summary.Binding}}{{else}}(not bound){{end}}</td></tr>
</table></section>
<section><h2>Screen</h2>
<p class="err" id="noscreen"{{if not .NoScreen}} hidden{{end}}>No screen: {{.NoScreen}}</p>
<form method="post" action="/a/{{.ID}}/tap" id="tapform"{{if .NoScreen}} hidden{{end}}><input type="hidden" name="shown_width" id="shown_width">
<input type="image" name="screen" id="screen" src="{{if not .NoScreen}}/a/{{.ID}}/screen.png{{end}}" alt="the device's screen: click to tap" style="width:{{.ScreenWidth}}px">
</form>
<form method="post" action="/a/{{.ID}}/type"><input name="text" id="text" placeholder="type into the focused field"> <button>Type</button></form>
<form method="post" action="/a/{{.ID}}/key" class="inline"><button name="key" value="back" id="back">Back</button> <button name="key" value="home" id="home">Home</button>
{{if eq .Summary.TargetType "android-tv"}}<span id="dpad"><button name="key" value="left">◀</button> <button name="key" value="up">▲</button> <button name="key" value="center">OK</button> <button name="key" value="down">▼</button> <button name="key" value="right">▶</button></span>{{end}}</form>
</section>
<section><h2>Recent actions</h2><ul id="actions">{{range .Actions}}<li>{{.What}}: {{if not .Done}}<b>running</b>{{else if .Failed}}<span class="err">failed: {{.Result}}</span>{{else}}<span class="ok">done</span> {{.Result}}{{end}}</li>{{else}}<li class="off">none yet</li>{{end}}</ul></section>
<section><h2>Running task</h2>{{template "steps" .Steps}}</section>
<section><h2>Sessions</h2><ul id="sessions">{{range .Sessions}}<li><a href="/a/{{$.ID}}/sessions/{{.ID}}">{{.ID}}</a> {{.Task}} {{if .Running}}<b>running</b>{{else}}<span class="off">{{.Status}}</span>{{end}}</li>{{else}}<li class="off">none yet</li>{{end}}</ul></section>
<section><h2>Cron jobs</h2><table id="jobs">{{range .Jobs}}<tr><td>{{.Name}}</td><td>{{.Schedule}}</td><td>{{.Payload}}</td>
<td class="{{if .Enabled}}ok{{else}}off{{end}}">{{if .Enabled}}enabled{{else}}disabled{{end}}</td><td>
<form method="post" action="/a/{{$.ID}}/jobs/{{.ID}}/{{if .Enabled}}disable{{else}}enable{{end}}" class="inline"><button>{{if .Enabled}}Disable{{else}}Enable{{end}}</button></form>
<form method="post" action="/a/{{$.ID}}/jobs/{{.ID}}/run" class="inline"><button>Run now</button></form></td></tr>
{{else}}<tr><td class="off">no jobs</td></tr>{{end}}</table></section>
<section><h2>Skills</h2><ul id="skills">{{range .Skills}}<li><a href="/a/{{$.ID}}/skills/{{.Name}}">{{.Name}}</a> {{.Description}}
<form method="post" action="/a/{{$.ID}}/skills/{{.Name}}/replay" class="inline"><button>Replay</button></form></li>{{else}}<li class="off">none</li>{{end}}</ul></section>
</main>
<script>
(function(){
  var img=document.getElementById('screen'), id={{.ID}};
  var form=document.getElementById('tapform'), why=document.getElementById('noscreen');
  // On a narrow page the image is shown smaller: the tap is mapped by
  // the width it had when clicked.
  form.addEventListener('submit',function(){
    document.getElementById('shown_width').value=img.getBoundingClientRect().width;
  });
  // The next capture is asked for only once the last one arrived, so a
  // slow device is never flooded.
  var shown='';
  function next(){setTimeout(refresh,1000);}
  function refresh(){
    fetch('/a/'+encodeURIComponent(id)+'/screen.png',{cache:'no-store'}).then(function(r){
      // No screen: say why in words, never a broken image.
      if(!r.ok){return r.text().then(function(t){why.textContent='No screen: '+t.trim();why.hidden=false;form.hidden=true;throw new Error(r.status);});}
      return r.blob();
    }).then(function(b){var u=URL.createObjectURL(b);img.src=u;if(shown){URL.revokeObjectURL(shown);}shown=u;why.hidden=true;form.hidden=false;next();}).catch(next);
  }
  next();
  setInterval(function(){fetch('/a/'+encodeURIComponent(id)+'/steps').then(function(r){return r.text();})
    .then(function(h){document.getElementById('steps').outerHTML=h;});},1000);
})();
</script>
</body></html>{{end}}

{{define "session"}}{{template "head" .Session}}
<header><a href="/">OpenPocket</a> · <a href="/a/{{.ID}}/">{{.ID}}</a> · session {{.Session}}</header>
<main><section id="session">{{.HTML}}</section></main></body></html>{{end}}

{{define "skill"}}{{template "head" .Name}}
<header><a href="/">OpenPocket</a> · <a href="/a/{{.ID}}/">{{.ID}}</a> · skill {{.Name}}</header>
<main><section id="skill">{{.HTML}}
<form method="post" action="/a/{{.ID}}/skills/{{.Name}}/replay"><button>Replay</button></form></section></main></body></html>{{end}}

{{define "pendingauth"}}<section id="pendingauth"><h2>Human auth</h2>
{{range .Auth}}<div class="auth" id="auth-{{.ID}}">{{if .Title}}<p><b class="title">{{.Title}}</b></p>{{end}}{{if .Summary}}<p>{{.Summary}}</p>{{end}}
<p><b>{{.Capability}}</b>: <span class="instruction">{{.Instruction}}</span></p>
<p><small class="asker">Agent <b>{{if .AgentID}}{{.AgentID}}{{else}}{{$.ID}}{{end}}</b> asks{{if .Task}}, working on: {{.Task}}{{end}}</small></p>
<p><small>request {{.ID}}{{if not .Expires.IsZero}} · answer before {{.Expires.Format "15:04:05"}}{{with .Left $.Now}} <span class="left">({{.}} left)</span>{{end}}{{end}}{{if .URL}} · <a href="{{.URL}}">full page</a>{{end}}</small></p>
<form method="post" action="/a/{{$.ID}}/humanauth/{{.ID}}">{{if .Fields}}<p class="fields"><small>It asks for {{range $i, $f := .Fields}}{{if $i}}, {{end}}{{$f}}{{end}}: answer on its relay page (the link sent with the request), or reject it here.</small></p>
<button name="decision" value="reject" class="reject">Reject</button>{{else}}<input name="text" placeholder="text to type (a code), optional" autocomplete="off" style="max-width:100%">
<button name="decision" value="approve" class="approve">Approve</button> <button name="decision" value="reject" class="reject">Reject</button>{{end}}</form></div>
{{else}}<p class="off" id="noauth">nothing pending</p>{{end}}</section>{{end}}
`
