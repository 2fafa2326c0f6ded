module.exports = require('@backstage/cli/config/eslint-factory')(__dirname, {
  settings: {
    'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
  },
  rules: {
    // Modules depend in one direction (routes -> services -> database, usage -> metrics); a circle means a type
    // or rule sits in the wrong file.
    'import/no-cycle': ['error', { ignoreExternal: true }],
  },
});
