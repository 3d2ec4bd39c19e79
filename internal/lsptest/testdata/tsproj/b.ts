import { total } from "./a";

const n: number = total([1, 2]);
console.log(n);
