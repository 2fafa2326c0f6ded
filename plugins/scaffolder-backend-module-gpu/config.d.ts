export interface Config {
  scaffolder?: {
    /** Settings of the gpu scaffolder actions. */
    gpu?: {
      /**
       * Directory (relative to the backend's working directory, like `file` catalog locations) where
       * `gpu:catalog:register` writes catalog-info files, for setups without a Git provider. A `catalog.locations`
       * entry of type `file` must read it, e.g. `target: <directory>/*.yaml` with `rules: [{ allow: [Component] }]`.
       */
      catalogDirectory?: string;
    };
  };
}
