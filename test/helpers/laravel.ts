// Laravel's 422 body, built independently of src/validation so tests check the summary rule too:
// the first message, then " (and N more error[s])" counting every other message of every field.
export const unprocessable = (errors: Record<string, string[]>) => {
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  const message = more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`;
  return { message, errors };
};
