// Simple assignments translate to Lua.
output.greeting = 'Hi ' + 'alice';
var n = 2 * 3;
