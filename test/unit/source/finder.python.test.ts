import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

behavesLikeSqlFinder('python');
