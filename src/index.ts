// The package's library entry (`import … from '@baton-dev/baton'`): load and validate workflow
// manifests as `baton validate` and the App do, with the manifest's types. The engine and the
// hosts are not public: they change with baton's internals.
export { loadWorkflowFile, loadWorkflowText, type FileResult, type LibraryFile, type LibraryReader } from './manifest/load.ts';
export { findWorkflowFiles, validateFiles, type ValidationReport } from './manifest/validate.ts';
export { formatDiagnostic, type Diagnostic } from './manifest/diagnostics.ts';
export { toMermaid } from './manifest/graph.ts';
export type * from './manifest/types.ts';
export { PACKAGE_NAME, batonVersion } from './names.ts';
