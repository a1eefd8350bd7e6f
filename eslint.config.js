// ESLint flat config: the recommended JavaScript and TypeScript rules (tsc already checks types and
// unused names), plus the house rules that matter here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers point one way: domain <- state <- streams <- api <- cli. Each folder may import only the
// layers below it; only files under an adapters/ folder import the Kafka, LevelDB and registry clients.
// Static imports and exports (no-restricted-imports) and dynamic import() (no-restricted-syntax) alike;
// a path reaching a layer above through any `../` (`../api/`, `./../api/`, `../x/../api/`) counts.
const LAYERS = ['domain', 'state', 'streams', 'api', 'cli'];
const ADAPTER_PACKAGES = ['kafkajs', 'classic-level', '@kafkajs/confluent-schema-registry'];
function layerRule(layer, { adapters }) {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1);
  const upward = `(^|/)\\.\\./(${above.join('|')})/`;
  const layerMessage = `${layer}/ must not import ${above.join(', ')}/ (layers: ${LAYERS.join(' <- ')}).`;
  const adapterMessage = 'only files under an adapters/ folder import this client';
  const patterns = above.length ? [{ regex: upward, message: layerMessage }] : [];
  const paths = adapters ? [] : ADAPTER_PACKAGES.map((name) => ({ name, message: adapterMessage }));
  // (a selector's regex cannot hold a slash, even escaped: \x2F stands for one)
  const importMatching = (re) => `ImportExpression[source.value=/${re.replaceAll('/', '\\x2F')}/]`;
  const dynamic = [];
  if (above.length) dynamic.push({ selector: importMatching(upward), message: layerMessage });
  if (!adapters)
    dynamic.push({ selector: importMatching(`^(${ADAPTER_PACKAGES.join('|')})$`), message: adapterMessage });
  return {
    'no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': ['error', ...dynamic],
  };
}
const layerConfigs = LAYERS.flatMap((layer) => [
  { files: [`${layer}/**/*.ts`], ignores: [`${layer}/**/adapters/**`], rules: layerRule(layer, { adapters: false }) },
  { files: [`${layer}/**/adapters/**/*.ts`], rules: layerRule(layer, { adapters: true }) },
]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerConfigs,
);
