// validate-speedscope.mjs NPM_DIR FILE: checks FILE against the JSON schema
// of speedscope's file format that the speedscope package ships, with ajv,
// both from NPM_DIR/node_modules (check.sh installs them there from
// tests/package.json).  Prints "valid", or the schema's complaints and
// exits 1.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [dir, file] = process.argv.slice(2);
const modules = path.join(dir, 'node_modules');
const require = createRequire(path.join(modules, 'noop.js'));
const Ajv = require('ajv');
const schemaPath = path.join(modules, 'speedscope', 'dist', 'release',
                             'file-format-schema.json');
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
const doc = JSON.parse(readFileSync(file, 'utf8'));
if (validate(doc)) {
  console.log('valid');
} else {
  for (const e of validate.errors.slice(0, 20))
    console.log(`${e.instancePath || '/'} ${e.message}`);
  process.exit(1);
}
