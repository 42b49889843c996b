// The part of a widget's URL after /widgets/.
export function slugify(name) {
  return name.toLowerCase();
}
