// open-in-speedscope.mjs NPM_DIR FILE: opens FILE in the speedscope app
// that the speedscope package ships (NPM_DIR/node_modules/speedscope/dist/
// release/index.html), in Debian's headless chromium, the way the
// package's own command line hands it a file (a script that calls
// speedscope.loadFileFromBase64), and prints the text of the page once the
// app has imported it: the name of the profile it shows and "(i/n)", or
// the app's complaint.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [dir, file] = process.argv.slice(2);
const app = path.join(dir, 'node_modules', 'speedscope', 'dist', 'release', 'index.html');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pyprof-speedscope-'));
try {
  const loader = path.join(tmp, 'load.js');
  const b64 = readFileSync(file).toString('base64');
  writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
                        `${JSON.stringify(b64)})`);
  const dom = execFileSync('chromium', [
    '--headless', '--no-sandbox', '--disable-gpu', '--allow-file-access-from-files',
    `--user-data-dir=${path.join(tmp, 'profile')}`, '--virtual-time-budget=10000',
    '--dump-dom', `file://${app}#localProfilePath=${loader}`,
  ], { encoding: 'utf8', timeout: 90000, stdio: ['ignore', 'pipe', 'ignore'],
       maxBuffer: 64 << 20 });
  const body = dom.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<style[\s\S]*?<\/style>/g, '');
  console.log(body.replace(/<[^>]*>/g, '\n').split('\n').map(s => s.trim()).filter(Boolean)
    .join('\n'));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
