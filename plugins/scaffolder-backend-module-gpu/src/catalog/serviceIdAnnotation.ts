/** The annotation of a catalog Component naming its GPU service (the gpu frontend plugin's card reads it). */
export const GPU_SERVICE_ID_ANNOTATION = 'gpu.backstage.io/service-id';
